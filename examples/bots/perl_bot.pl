#!/usr/bin/env perl
# An example gameroom bot in Perl (core modules only): connects to the port the league
# (or a server) gives it, signs up, and answers every call of Q, Bazaar, Fish, Evolution
# and Eriantys with a simple legal move. See docs/bots.md.
#
#     perl perl_bot.pl PORT [NAME]        (or GAMEROOM_PORT / GAMEROOM_NAME / GAMEROOM_GAME)
#     perl perl_bot.pl HOST:PORT TOKEN    an arena's remote bot: game after game
#
# Given a port, the bot plays one game on this machine (as a league or an arena starts it).
# Given HOST:PORT (an arena's remote port, with the token its registration showed where the
# name goes), it is a remote bot that stays: after each game it connects again, and when the
# arena cannot be reached or closes the connection before a game it waits 1, 2, 4 ... up to
# 30 s and tries again, until Ctrl-C. --once plays one game either way.
#
# Every message from the server is one JSON value (followed by whitespace; the bot does not
# rely on newlines). Q, Bazaar, Fish and Eriantys send calls [method, [arguments...]];
# Evolution sends the bare argument array and a call is told apart by its length. The bot
# answers each call (except Evolution's start) with one JSON value and a newline.
use strict;
use warnings;
use IO::Socket::INET;
use JSON::PP;

my $once = grep { $_ eq "--once" } @ARGV;
my @words = grep { $_ ne "--once" } @ARGV;
my $where = $words[0] // $ENV{GAMEROOM_PORT} // die "usage: perl_bot.pl [HOST:]PORT [NAME]\n";
my ($host, $port) = $where =~ /^(.*):(\d+)$/ ? ($1, $2) : ("", $where);
$host =~ s/^\[|\]$//g;
my $name = $words[1] // $ENV{GAMEROOM_NAME} // "perlbot";
my $game = $ENV{GAMEROOM_GAME} // "q";
my $json = JSON::PP->new->allow_nonref->canonical;

# Fish (fish.md 2.2): half-offset rows; directions N, NE, SE, S, SW, NW by row parity.
my @EVEN = ([-2, 0], [-1, 0], [1, 0], [2, 0], [1, -1], [-1, -1]);
my @ODD  = ([-2, 0], [-1, 1], [1, 1], [2, 0], [1, 0], [-1, 0]);

sub taken {
    my ($state) = @_;
    my %taken;
    for my $player (@{ $state->{players} }) {
        $taken{"$_->[0],$_->[1]"} = 1 for @{ $player->{places} };
    }
    return \%taken;
}

sub fish_place {    # the first free tile, row by row
    my ($state) = @_;
    my $taken = taken($state);
    my $board = $state->{board};
    for my $r (0 .. $#$board) {
        for my $c (0 .. $#{ $board->[$r] }) {
            return [$r, $c] if $board->[$r][$c] > 0 && !$taken->{"$r,$c"};
        }
    }
    return [0, 0];
}

sub fish_move {     # the first penguin that can step, to the first tile it reaches
    my ($state) = @_;
    my $taken = taken($state);
    my $board = $state->{board};
    for my $place (@{ $state->{players}[0]{places} }) {
        my ($r, $c) = @$place;
        for my $d ($r % 2 ? @ODD : @EVEN) {
            my ($tr, $tc) = ($r + $d->[0], $c + $d->[1]);
            next if $tr < 0 || $tr > $#$board || $tc < 0 || $tc > $#{ $board->[$tr] };
            return [[$r, $c], [$tr, $tc]] if $board->[$tr][$tc] > 0 && !$taken->{"$tr,$tc"};
        }
    }
    return JSON::PP::false;
}

# Evolution (evolution.md 6.2): a species is [["food",n],["body",n],["population",n],["traits",[...]]],
# optionally followed by ["fat-food",n].
sub species { return { map { $_->[0] => $_->[1] } @{ $_[0] } } }

sub evolution_choose {   # Action4: card 0 feeds the hole; a second card grows a population
    my ($boards, $cards) = @_;
    my @grow;
    if (@$cards > 1) {
        for my $i (0 .. $#$boards) {
            if (species($boards->[$i])->{population} < 7) { @grow = ([$i, 1]); last }
        }
    }
    return [0, \@grow, [], [], []];
}

sub evolution_feed {     # the first hungry vegetarian; else fat for a fat-tissue species; else none
    my ($boards) = @_;
    for my $i (0 .. $#$boards) {
        my $s = species($boards->[$i]);
        return $i if !(grep { $_ eq "carnivore" } @{ $s->{traits} }) && $s->{food} < $s->{population};
    }
    for my $i (0 .. $#$boards) {
        my $s = species($boards->[$i]);
        my $room = $s->{body} - ($s->{"fat-food"} // 0);
        return [$i, $room] if (grep { $_ eq "fat-tissue" } @{ $s->{traits} }) && $room > 0;
    }
    return JSON::PP::false;
}

# Eriantys (eriantys.md 5, 6.5): act(state) answers one event object for the current player.
my @COLORS = qw(GREEN RED YELLOW PINK BLUE);

sub eriantys_act {
    my ($state) = @_;
    my $me = $state->{players}[ $state->{currentPlayer} ];
    my $phase = $state->{phase};
    if ($phase eq "PLANNING_PHASE") {    # a card nobody else played this round, if there is one
        my %played = map { defined $_->{playedAssistant} && $_->{seat} != $me->{seat} ? ($_->{playedAssistant} => 1) : () }
                     @{ $state->{players} };
        my @free = grep { !$played{$_} } @{ $me->{hand} };
        return { eventType => "PLAY_ASSISTANT_CARD", assistantCard => (@free ? $free[0] : $me->{hand}[0]) };
    }
    if ($phase eq "ACTION_PHASE_ONE") {  # a student to its table (at most 10 a table), else to island 0
        my @colors = grep { $me->{entrance}{$_} > 0 } @COLORS;
        for my $color (@colors) {
            return { eventType => "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color => $color }
                if $me->{diningRoom}{$color} < 10;
        }
        return { eventType => "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color => $colors[0], islandIndex => 0 };
    }
    return { eventType => "MOVE_MOTHER_NATURE", amount => 1 } if $phase eq "ACTION_PHASE_TWO";
    my $clouds = $state->{clouds};
    for my $i (0 .. $#$clouds) {
        my $students = 0;
        $students += $_ for values %{ $clouds->[$i] };
        return { eventType => "CHOOSE_CLOUD", cloudIndex => $i } if $students > 0;
    }
    return { eventType => "CHOOSE_CLOUD", cloudIndex => 0 };
}

sub answer {
    my ($method, $args) = @_;
    return fish_place($args->[0]) if $game eq "fish" && $method eq "setup";
    return fish_move($args->[0])  if $game eq "fish" && $method eq "take-turn";
    return "pass"                 if $game eq "q" && $method eq "take-turn";
    if ($game eq "bazaar" && $method eq "request-pebble-or-trades") {   # a pebble while the bank has one
        return @{ $args->[0]{bank} } ? JSON::PP::false : [];
    }
    return []                     if $game eq "bazaar" && $method eq "request-cards";
    return eriantys_act($args->[0]) if $game eq "eriantys" && $method eq "act";
    return "void";                # setup, new-tiles, win, playing-as, observe, end, ...
}

my ($socket, $buffer);
sub next_message {      # the next JSON value of the stream, whatever whitespace separates values
    while (1) {
        $buffer =~ s/^\s+//;
        if (length $buffer) {
            my ($value, $length) = eval { $json->decode_prefix($buffer) };
            if (defined $length) {
                substr($buffer, 0, $length) = "";
                return [$value];
            }
        }
        my $read = sysread($socket, my $chunk, 65536);
        return undef unless $read;
        $buffer .= $chunk;
    }
}

sub send_value { print $socket $json->encode($_[0]), "\n" }

sub play {              # one game; how many calls were answered (undef: no connection)
    $socket = IO::Socket::INET->new(PeerAddr => $_[0], PeerPort => $port, Proto => "tcp") or return undef;
    $socket->autoflush(1);
    $buffer = "";
    my $answered = 0;
    send_value($name);                           # sign up: the name as a JSON string
    next_message() if $game eq "evolution";      # Evolution answers a sign-up with "ok"
    my ($boards, $hand) = ([], []);
    while (defined(my $read = next_message())) {
        my $message = $read->[0];
        $answered++;
        if ($game eq "evolution") {              # told apart by length: start 4, choose 2, feedNext 5
            if (@$message == 4) { ($boards, $hand) = ($message->[2], $message->[3]) }    # start: no reply
            elsif (@$message == 2) { send_value(evolution_choose($boards, $hand)) }
            elsif (@$message == 5) { send_value(evolution_feed($message->[1])) }
            next;                                # the game ends when the server closes the connection
        }
        my ($method, $args) = @$message;
        send_value(answer($method, $args));
        last if $method eq "win" || $method eq "end";
    }
    close $socket;
    return $answered;
}

if ($host eq "" || $once) {
    defined play($host eq "" ? "127.0.0.1" : $host) or die "cannot connect to port $port: $!\n";
    exit 0;
}
my $pause = 1;
while (1) {             # a remote bot: game after game, waiting longer (up to 30 s) when none is played
    my $answered = play($host);
    if ($answered) { $pause = 1; next; }
    print STDERR defined $answered
        ? "perl bot: $where closed the connection before a game (the arena stopped, or turned the token away: its page says why); again in $pause s\n"
        : "perl bot: cannot reach $where: $!; again in $pause s\n";
    sleep $pause;
    $pause = $pause * 2 > 30 ? 30 : $pause * 2;
}

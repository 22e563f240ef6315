#!/usr/bin/env perl
# An example gameroom bot in Perl (core modules only): connects to the port the league
# (or a server) gives it, signs up, and answers every call of Q, Bazaar and Fish with a
# simple legal move. See docs/bots.md.
#
#     perl perl_bot.pl PORT [NAME]        (or GAMEROOM_PORT / GAMEROOM_NAME / GAMEROOM_GAME)
#
# Every message from the server is one JSON value on its own line: a call
# [method, [arguments...]]; the bot answers each call with one JSON value and a newline.
use strict;
use warnings;
use IO::Socket::INET;
use JSON::PP;

my $port = $ARGV[0] // $ENV{GAMEROOM_PORT} // die "usage: perl_bot.pl PORT [NAME]\n";
my $name = $ARGV[1] // $ENV{GAMEROOM_NAME} // "perlbot";
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

sub answer {
    my ($method, $args) = @_;
    return fish_place($args->[0]) if $game eq "fish" && $method eq "setup";
    return fish_move($args->[0])  if $game eq "fish" && $method eq "take-turn";
    return "pass"                 if $game eq "q" && $method eq "take-turn";
    if ($game eq "bazaar" && $method eq "request-pebble-or-trades") {   # a pebble while the bank has one
        return @{ $args->[0]{bank} } ? JSON::PP::false : [];
    }
    return []                     if $game eq "bazaar" && $method eq "request-cards";
    return "void";                # setup, new-tiles, win, playing-as, ...
}

my $socket = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port, Proto => "tcp")
    or die "cannot connect to port $port: $!\n";
$socket->autoflush(1);
print $socket $json->encode($name), "\n";      # sign up: the name as a JSON string
while (my $line = <$socket>) {
    next unless $line =~ /\S/;
    my ($method, $args) = @{ $json->decode($line) };
    print $socket $json->encode(answer($method, $args)), "\n";
    last if $method eq "win" || $method eq "end";
}
close $socket;

#!/usr/bin/env node
// An example gameroom bot in plain Node.js (no packages): it connects to the port the arena
// (or a league, or a server) gives it, signs up, and answers every call of Q, Bazaar, Fish,
// Evolution and Eriantys with a simple legal move, from the wire formats of the specs.
//
//     node node_bot.js PORT [NAME]        (or GAMEROOM_PORT / GAMEROOM_NAME / GAMEROOM_GAME)
//     node node_bot.js HOST:PORT TOKEN    an arena's remote bot: game after game
//
// Given a port, the bot plays one game on this machine (as a league or an arena starts it).
// Given HOST:PORT (an arena's remote port, with the token its registration showed where the
// name goes), it is a remote bot that stays: after each game it connects again, and when the
// arena cannot be reached or closes the connection before a game it waits 1, 2, 4 ... up to
// 30 s and tries again, until Ctrl-C. --once plays one game either way.
//
// Every message from the server is one JSON value followed by whitespace (the bot does not
// rely on newlines). Q, Bazaar, Fish and Eriantys send calls [method, [arguments...]];
// Evolution sends the bare argument array and a call is told apart by its length. The bot
// answers each call (except Evolution's start) with one JSON value and a newline.
"use strict";
const net = require("net");

// Fish (fish.md 2.2): rows are half-offset; a step's row/column change depends on the row's
// parity. Directions N, NE, SE, S, SW, NW.
const EVEN = [[-2, 0], [-1, 0], [1, 0], [2, 0], [1, -1], [-1, -1]];
const ODD = [[-2, 0], [-1, 1], [1, 1], [2, 0], [1, 0], [-1, 0]];

function taken(state) {
  const set = new Set();
  for (const player of state.players) for (const [r, c] of player.places) set.add(`${r},${c}`);
  return set;
}

function fishPlace(state) {
  const occupied = taken(state);
  for (let r = 0; r < state.board.length; r++) {
    for (let c = 0; c < state.board[r].length; c++) {
      if (state.board[r][c] > 0 && !occupied.has(`${r},${c}`)) return [r, c];
    }
  }
  return [0, 0];
}

function fishMove(state) {
  const board = state.board;
  const occupied = taken(state);
  for (const [r, c] of state.players[0].places) {
    for (const [dr, dc] of (r % 2 ? ODD : EVEN)) {
      const tr = r + dr;
      const tc = c + dc;
      if (tr >= 0 && tr < board.length && tc >= 0 && tc < board[tr].length && board[tr][tc] > 0 && !occupied.has(`${tr},${tc}`)) {
        return [[r, c], [tr, tc]];
      }
    }
  }
  return false;
}

// Evolution (evolution.md 6.2): a species is [["food",n],["body",n],["population",n],["traits",[...]]]
// optionally followed by ["fat-food",n].
const species = (board) => Object.fromEntries(board);

function evolutionChoose(boards, cards) {
  const grow = cards.length > 1 ? boards.map((b, i) => [i, species(b).population]).filter(([, p]) => p < 7).slice(0, 1).map(([i]) => [i, 1]) : [];
  return [0, grow, [], [], []];
}

function evolutionFeed(boards) {
  for (let i = 0; i < boards.length; i++) {
    const s = species(boards[i]);
    if (!s.traits.includes("carnivore") && s.food < s.population) return i;
  }
  for (let i = 0; i < boards.length; i++) {
    const s = species(boards[i]);
    const fat = s["fat-food"] || 0;
    if (s.traits.includes("fat-tissue") && s.body > fat) return [i, s.body - fat];
  }
  return false;
}

// Eriantys (eriantys.md 5, 6.5): act(state) answers one event for the current player.
function eriantysAct(state) {
  const me = state.players[state.currentPlayer];
  const phase = state.phase;
  if (phase === "PLANNING_PHASE") {
    const played = new Set(state.players.filter((p) => p !== me).map((p) => p.playedAssistant));
    const free = me.hand.filter((card) => !played.has(card));
    return { eventType: "PLAY_ASSISTANT_CARD", assistantCard: (free.length ? free : me.hand)[0] };
  }
  if (phase === "ACTION_PHASE_ONE") {
    const colors = Object.keys(me.entrance).filter((color) => me.entrance[color] > 0);
    for (const color of colors) {
      if (me.diningRoom[color] < 10) return { eventType: "MOVE_STUDENT_FROM_ENTRANCE_TO_TABLE", color };
    }
    return { eventType: "MOVE_STUDENT_FROM_ENTRANCE_TO_ISLAND", color: colors[0], islandIndex: 0 };
  }
  if (phase === "ACTION_PHASE_TWO") return { eventType: "MOVE_MOTHER_NATURE", amount: 1 };
  const clouds = state.clouds.map((cloud, i) => [i, Object.values(cloud).reduce((a, b) => a + b, 0)]).filter(([, n]) => n > 0);
  return { eventType: "CHOOSE_CLOUD", cloudIndex: clouds.length ? clouds[0][0] : 0 };
}

// A pebble while the bank has one (a bank is a list or an object of pebbles), else no trade.
const filled = (bank) => (Array.isArray(bank) ? bank.length > 0 : Object.keys(bank || {}).length > 0);

function answer(game, method, args) {
  if (game === "fish" && method === "setup") return fishPlace(args[0]);
  if (game === "fish" && method === "take-turn") return fishMove(args[0]);
  if (game === "q" && method === "take-turn") return "pass";            // always legal in Q
  if (game === "bazaar" && method === "request-pebble-or-trades") return filled(args[0].bank) ? false : [];
  if (game === "bazaar" && method === "request-cards") return [];
  if (game === "eriantys" && method === "act") return eriantysAct(args[0]);
  return "void";
}

// The JSON values of a stream, whatever whitespace separates them: a scanner that finds where
// each top-level value ends (strings and escapes respected), then JSON.parse.
function valueEnd(text, start) {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === "\"") {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (ch === "\"") inString = true;
    else if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) return i + 1;
    } else if (depth === 0 && /\s/.test(ch)) return i;
  }
  return -1;   // incomplete (a bare number or literal at the very end also waits for more)
}

function play(host, port, name, game, done) {
  // one game: connect, sign up, answer every call; done(calls answered, error or null)
  const socket = net.createConnection({ host, port });
  const send = (value) => socket.write(JSON.stringify(value) + "\n");
  let buffer = "";
  let greeted = game !== "evolution";   // Evolution answers a sign-up with "ok"
  let boards = [];
  let hand = [];
  let answered = 0;
  let failure = null;
  socket.setEncoding("utf8");
  socket.on("connect", () => send(name));
  socket.on("data", (chunk) => {
    buffer += chunk;
    for (;;) {
      const start = buffer.search(/\S/);
      if (start < 0) { buffer = ""; return; }
      const end = valueEnd(buffer, start);
      if (end < 0) { buffer = buffer.slice(start); return; }
      const message = JSON.parse(buffer.slice(start, end));
      buffer = buffer.slice(end);
      if (!greeted) { greeted = true; continue; }
      answered++;
      if (game === "evolution") {
        if (message.length === 4) { boards = message[2]; hand = message[3]; }
        else if (message.length === 2) send(evolutionChoose(boards, hand));
        else if (message.length === 5) send(evolutionFeed(message[1]));
        continue;
      }
      const [method, args] = message;
      send(answer(game, method, args));
      if (method === "win" || method === "end") { socket.end(); return; }
    }
  });
  socket.on("error", (error) => { failure = error; });
  socket.on("close", () => done(answered, failure));
}

function main() {
  const once = process.argv.includes("--once");
  const words = process.argv.slice(2).filter((word) => word !== "--once");
  const where = words[0] || process.env.GAMEROOM_PORT;
  const name = words[1] || process.env.GAMEROOM_NAME || "nodebot";
  const game = process.env.GAMEROOM_GAME || "q";
  const colon = where.lastIndexOf(":");
  const host = colon > 0 ? where.slice(0, colon).replace(/^\[|\]$/g, "") : "127.0.0.1";
  const port = Number(where.slice(colon + 1));
  if (colon <= 0 || once) {
    play(host, port, name, game, (answered, error) => {
      if (error) { process.stderr.write(`node bot: ${error.message}\n`); process.exit(1); }
    });
    return;
  }
  let pause = 1;
  const again = () => play(host, port, name, game, (answered, error) => {
    if (answered) { pause = 1; again(); return; }
    process.stderr.write(error ? `node bot: cannot reach ${where}: ${error.message}; again in ${pause} s\n`
      : `node bot: ${where} closed the connection before a game (the arena stopped, or turned the token away: `
        + `its page says why); again in ${pause} s\n`);
    setTimeout(again, pause * 1000);
    pause = Math.min(2 * pause, 30);
  });
  again();
}

main();

// The public table display: renders each view the server pushes (server-sent events).
// The server never sends a card's value before the card is revealed; this script only draws.
"use strict";

const SUITS = { S: ["\u2660", false], H: ["\u2665", true], D: ["\u2666", true], C: ["\u2663", false] };
const $ = (id) => document.getElementById(id);
let lastRoads = "";

function text(el, value) {
  const v = value === null || value === undefined ? "" : String(value);
  if (el.textContent !== v) el.textContent = v;
}

function drawSlot(slot, card) {
  slot.replaceChildren();
  slot.className = slot.classList.contains("third") ? "slot third" : "slot";
  delete slot.dataset.card;
  if (!card) return;
  if (card.fixed) {
    slot.classList.add("fixed");
    const rank = document.createElement("span");
    rank.className = "rank";
    rank.textContent = "7";
    slot.append(rank);
    return;
  }
  if (card.card === null) {
    slot.classList.add("back");
    slot.dataset.state = "back";
    return;
  }
  slot.dataset.state = "face";
  slot.dataset.card = card.card;
  slot.classList.add("face");
  const code = card.card;
  const rank = document.createElement("span");
  rank.className = "rank";
  const suit = document.createElement("span");
  suit.className = "suit";
  if (code === "??") {
    rank.textContent = "?";
  } else {
    rank.textContent = code[0] === "T" ? "10" : code[0];
    if (code[0] === "T") rank.classList.add("ten");
    const [symbol, red] = SUITS[code[1]] || ["?", false];
    suit.textContent = symbol;
    if (red) slot.classList.add("red");
  }
  slot.append(rank, suit);
}

function drawSide(containerId, cards) {
  const byPos = {};
  for (const c of cards || []) byPos[c.pos] = c;
  for (const slot of $(containerId).querySelectorAll(".slot")) {
    const card = byPos[slot.dataset.pos];
    const key = card ? (card.fixed ? "fixed" : card.card === null ? "back" : card.card) : "";
    if (slot.dataset.key !== key) {
      slot.dataset.key = key;
      drawSlot(slot, card);
    }
  }
}

function cell(className, label) {
  const div = document.createElement("div");
  if (className) {
    const inner = document.createElement("span");
    inner.className = className;
    if (label) inner.textContent = label;
    div.append(inner);
  }
  return div;
}

function columnsThatFit(el) {
  // The board shows the latest columns: as many as its width holds.
  const cell = parseFloat(getComputedStyle(el).gridAutoColumns) || 1;
  return Math.max(1, Math.floor(el.clientWidth / cell));
}

function drawGrid(el, rows, draw) {
  // rows: grid[row][col]; the CSS grid flows by column, six rows.
  const frag = document.createDocumentFragment();
  const width = rows.length ? rows[0].length : 0;
  for (let col = Math.max(0, width - columnsThatFit(el)); col < width; col++) {
    for (let row = 0; row < rows.length; row++) frag.append(draw(rows[row][col]));
  }
  el.replaceChildren(frag);
}

function drawRoads(roads) {
  const key = JSON.stringify(roads);
  if (key === lastRoads) return;
  lastRoads = key;
  const bead = document.createDocumentFragment();
  const beadEl = $("bead-plate");
  for (const column of roads.bead_plate.slice(-columnsThatFit(beadEl))) {
    for (let row = 0; row < 6; row++) {
      const r = column[row];
      bead.append(r ? cell("bead-" + r, r) : cell(null));
    }
  }
  beadEl.replaceChildren(bead);
  drawGrid($("big-road"), roads.big_road, (c) => {
    if (!c) return cell(null);
    const div = cell("ring " + (c.w || "none"));
    if (c.t) {
      const t = document.createElement("span");
      t.className = "ties";
      t.textContent = c.t > 1 ? String(c.t) : "";
      div.append(t);
    }
    return div;
  });
  drawGrid($("big-eye-boy"), roads.big_eye_boy, (m) => cell(m ? "eye " + m : null));
  drawGrid($("small-road"), roads.small_road, (m) => cell(m ? "dot " + m : null));
  drawGrid($("cockroach-pig"), roads.cockroach_pig, (m) => cell(m ? "slash " + m : null));
  const n = roads.counts;
  text($("counts"), `B ${n.banker} \u00b7 P ${n.player} \u00b7 T ${n.tie}`);
}

const WINNER = { player: "PLAYER WINS", banker: "BANKER WINS", tie: "TIE" };

function render(view) {
  document.body.dataset.seq = view.seq;
  text($("table-id"), view.table);
  const shoe = view.shoe;
  const game = view.game;
  text($("shoe-id"), shoe ? shoe.id : "-");
  text($("variant"), shoe ? shoe.variant : "");
  text($("game-number"), game ? game.number : "-");
  text($("cards-out"), game && game.cards_out ? `${game.cards_out} card${game.cards_out > 1 ? "s" : ""}` : "");
  document.body.dataset.game = game ? game.number : "";
  const state = $("shoe-state");
  text(state, shoe ? shoe.state : "no shoe");
  state.className = "pill" + (shoe && shoe.state === "last game" ? " last" : "")
    + (shoe && shoe.status !== "open" ? " " + shoe.status : "");
  for (const [name, link] of Object.entries(view.links)) {
    const el = $("link-" + name);
    if (el) { el.dataset.status = link.status; el.title = link.reason || ""; }
  }
  drawSide("player-cards", game ? game.player : []);
  drawSide("banker-cards", game ? game.banker : []);
  text($("player-total"), game && game.player_total !== null ? game.player_total : "");
  text($("banker-total"), game && game.banker_total !== null ? game.banker_total : "");
  text($("headline"), view.action.headline);
  text($("notes"), view.action.notes.join(" \u00b7 "));
  const result = game && game.result;
  const box = $("result");
  box.hidden = !result;
  if (result) {
    const isVoid = result.status === "void";
    box.className = "result " + (isVoid ? "void" : result.winner);
    text($("result-text"), isVoid ? "GAME VOID" : WINNER[result.winner] || "");
    const bets = document.createDocumentFragment();
    if (result.natural && !isVoid) {
      const span = document.createElement("span");
      span.className = "natural";
      span.textContent = "natural";
      bets.append(span);
    }
    for (const b of result.bets) {
      const span = document.createElement("span");
      span.textContent = `${b.bet.replace("_", " ")} ${b.pays}`;
      bets.append(span);
    }
    $("bets").replaceChildren(bets);
  }
  const alert = $("alert");
  alert.hidden = !view.alert;
  if (view.alert) {
    text($("alert-title"), view.alert.title);
    text($("alert-text"), view.alert.lines.join(" \u00b7 "));
  }
  drawRoads(view.roads);
}

function connect() {
  const status = $("link-display");
  const source = new EventSource("/events");
  source.addEventListener("table", (e) => render(JSON.parse(e.data)));
  source.onopen = () => { status.dataset.status = "up"; document.body.dataset.stream = "open"; };
  source.onerror = () => { status.dataset.status = "down"; document.body.dataset.stream = "retrying"; };
}

connect();

// The public table display: renders each view the server pushes (server-sent events).
// The server never sends a card's value before the card is revealed; this script only draws.
// Its words come from the page: a JSON catalog (id -> text) for each of the board's languages
// (two on a bilingual board); a server text with numbers in it matches an id's {0}, {1}.
"use strict";

const SUITS = { S: ["\u2660", false], H: ["\u2665", true], D: ["\u2666", true], C: ["\u2663", false] };
const $ = (id) => document.getElementById(id);
let lastRoads = "";
let lastView = null;
const CATALOG = JSON.parse(document.getElementById("catalog").textContent);
const PATTERNS = Object.keys(CATALOG.messages[0] || {}).filter((k) => k.includes("{0}")).map((k) => [
  new RegExp("^" + k.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\d)\}/g, "(.+?)") + "$"), k])
  .sort((a, b) => b[1].replace(/\{\d\}/g, "").length - a[1].replace(/\{\d\}/g, "").length);

function exact(i, text) {
  const messages = CATALOG.messages[i];
  return Object.prototype.hasOwnProperty.call(messages, text) ? messages[text] : text;
}

function translate(i, text) {
  // The text itself, or a pattern's translation with what filled its {0}, {1} (a list of
  // names, each translated: "Game 3: card exposed, foreign card").
  const messages = CATALOG.messages[i];
  if (Object.prototype.hasOwnProperty.call(messages, text)) return messages[text];
  for (const [pattern, key] of PATTERNS) {
    const hit = pattern.exec(text);
    if (hit) {
      return messages[key].replace(/\{(\d)\}/g, (_, n) =>
        hit[Number(n) + 1].split(", ").map((part) => exact(i, part)).join(exact(i, ", ")));
    }
  }
  return text;
}

function say(el, build) {
  // The text in each of the board's languages, one span each: build(tr) writes it with tr,
  // the translation into one language (a string instead of build: that text, translated).
  const make = typeof build === "function" ? build : (tr) => tr(build);
  const texts = CATALOG.languages.map((_, i) => make((t) => translate(i, t)));
  const key = texts.join("\u0001");
  if (el.dataset.said === key) return;
  el.dataset.said = key;
  el.replaceChildren(...CATALOG.languages.map((lang, i) => {
    const span = document.createElement("span");
    span.className = "tr";
    span.lang = lang;
    span.textContent = texts[i];
    return span;
  }));
}

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
      bead.append(r ? cell("bead-" + r, translate(0, r)) : cell(null));
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
  say($("counts"), (tr) => `${tr("B")} ${n.banker} \u00b7 ${tr("P")} ${n.player} \u00b7 ${tr("T")} ${n.tie}`);
}

const WINNER = { player: "PLAYER WINS", banker: "BANKER WINS", tie: "TIE" };

function render(view) {
  lastView = view;
  document.body.dataset.seq = view.seq;
  text($("table-id"), view.table);
  const shoe = view.shoe;
  const game = view.game;
  text($("shoe-id"), shoe ? shoe.id : "-");
  say($("variant"), shoe ? shoe.variant : "");  // its word in each of the board's languages
  text($("game-number"), game ? game.number : "-");
  say($("cards-out"), game && game.cards_out ? `${game.cards_out} card${game.cards_out > 1 ? "s" : ""}` : "");
  document.body.dataset.game = game ? game.number : "";
  const state = $("shoe-state");
  say(state, shoe ? shoe.state : "no shoe");
  state.className = "pill" + (shoe && shoe.state === "last game" ? " last" : "")
    + (shoe && shoe.status !== "open" ? " " + shoe.status : "");
  for (const [name, link] of Object.entries(view.links)) {
    const el = $("link-" + name);
    if (el) { el.dataset.status = link.status; el.title = link.reason ? translate(0, link.reason) : ""; }
  }
  drawSide("player-cards", game ? game.player : []);
  drawSide("banker-cards", game ? game.banker : []);
  text($("player-total"), game && game.player_total !== null ? game.player_total : "");
  text($("banker-total"), game && game.banker_total !== null ? game.banker_total : "");
  say($("headline"), view.action.headline);
  say($("notes"), (tr) => view.action.notes.map(tr).join(" \u00b7 "));
  const result = game && game.result;
  const box = $("result");
  box.hidden = !result;
  if (result) {
    const isVoid = result.status === "void";
    box.className = "result " + (isVoid ? "void" : result.winner);
    say($("result-text"), isVoid ? "GAME VOID" : WINNER[result.winner] || "");
    const bets = document.createDocumentFragment();
    if (result.natural && !isVoid) {
      const span = document.createElement("span");
      span.className = "natural";
      say(span, "natural");
      bets.append(span);
    }
    for (const b of result.bets) {
      const span = document.createElement("span");
      say(span, (tr) => `${tr(b.bet.replace("_", " "))} ${b.pays}`);
      bets.append(span);
    }
    $("bets").replaceChildren(bets);
  }
  const alert = $("alert");
  alert.hidden = !view.alert;
  if (view.alert) {
    say($("alert-title"), view.alert.title);
    say($("alert-text"), (tr) => view.alert.lines.map(tr).join(" \u00b7 "));
  }
  drawRoads(view.roads);
}

function fitLayout() {
  // The portrait layout where the table asks for it, or on any screen taller than wide.
  const portrait = document.body.dataset.layout === "portrait" || TALL.matches;
  if (document.body.classList.contains("layout-portrait") !== portrait) {
    document.body.classList.toggle("layout-portrait", portrait);
    lastRoads = "";  // the roads hold another number of columns now
    if (lastView) drawRoads(lastView.roads);
  }
}
const TALL = window.matchMedia("(orientation: portrait)");
TALL.addEventListener("change", fitLayout);
fitLayout();

function connect() {
  const status = $("link-display");
  const source = new EventSource("/events");
  source.addEventListener("table", (e) => render(JSON.parse(e.data)));
  source.onopen = () => { status.dataset.status = "up"; document.body.dataset.stream = "open"; };
  source.onerror = () => { status.dataset.status = "down"; document.body.dataset.stream = "retrying"; };
}

connect();

// The pit's pages: swap in the fresh board or queue when the stream says something changed
// (a table's batch stored, an integrity alarm, a floor decision moved), at most every 300 ms,
// unless the supervisor is typing; and say whether the stream is live. The words come from the
// page (the JSON catalog in #catalog, in the page's language), never from this script.
"use strict";

const box = document.querySelector("[data-fragment]");
const live = document.getElementById("live");
const catalogElement = document.getElementById("catalog");
const words = catalogElement ? JSON.parse(catalogElement.textContent) : {};
const say = (text) => words[text] || text;
let timer = null;

async function refresh() {
  timer = null;
  if (!box || box.contains(document.activeElement)) return;
  const response = await fetch(box.dataset.fragment, { credentials: "same-origin" });
  if (response.ok) box.innerHTML = await response.text();
}

function showLive(on) {
  if (!live) return;
  live.hidden = false;
  live.className = on ? "live on" : "live off";
  live.textContent = say(on ? "Live" : "Reconnecting to the floor...");
}

if (box) {
  const source = new EventSource("/pit/stream");
  source.addEventListener("open", () => showLive(true));
  source.addEventListener("error", () => showLive(false));
  for (const kind of ["table", "alarm", "request", "resync"]) {
    source.addEventListener(kind, () => {
      if (timer === null) timer = setTimeout(refresh, 300);
    });
  }
}

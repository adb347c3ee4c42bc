// The supervisor console: reloads the review queue when the server says it changed
// (server-sent events), unless the supervisor is typing a decision.
"use strict";

let lastKey = null;
// The page's words in its language: a JSON catalog the server embeds (base.html).
const CATALOG_EL = document.getElementById("catalog");
const WORDS = CATALOG_EL ? JSON.parse(CATALOG_EL.textContent) : {};
const tr = (text) => WORDS[text] || text;

function busy(queue) {
  if (queue.contains(document.activeElement)) return true;
  return Array.from(queue.querySelectorAll("textarea")).some((t) => t.value.trim() !== "");
}

async function reload() {
  const queue = document.getElementById("queue");
  if (!queue) return;
  if (busy(queue)) {
    let note = document.getElementById("queue-changed");
    if (!note) {
      note = document.createElement("p");
      note.id = "queue-changed";
      note.className = "notice";
      note.textContent = tr("The queue has changed: reload the page when you are done.");
      queue.before(note);
    }
    return;
  }
  const response = await fetch("/supervisor/queue", { credentials: "same-origin" });
  if (!response.ok) return;
  queue.innerHTML = await response.text();
  const count = document.getElementById("queue-count");
  if (count) count.textContent = response.headers.get("X-Queue-Count") || "";
}

const source = new EventSource("/supervisor/stream");
source.addEventListener("review", (e) => {
  const data = JSON.parse(e.data);
  if (lastKey !== null && data.key !== lastKey) reload();
  lastKey = data.key;
});

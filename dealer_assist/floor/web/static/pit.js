// The pit's pages: swap in the fresh board or queue when the stream says something changed
// (a table's batch stored, an integrity alarm, a floor decision moved), at most every 300 ms,
// unless the supervisor is typing.
"use strict";

const box = document.querySelector("[data-fragment]");
let timer = null;

async function refresh() {
  timer = null;
  if (!box || box.contains(document.activeElement)) return;
  const response = await fetch(box.dataset.fragment, { credentials: "same-origin" });
  if (response.ok) box.innerHTML = await response.text();
}

if (box) {
  const source = new EventSource("/pit/stream");
  for (const kind of ["table", "alarm", "request", "resync"]) {
    source.addEventListener(kind, () => {
      if (timer === null) timer = setTimeout(refresh, 300);
    });
  }
}

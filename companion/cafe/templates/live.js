// The staff's page, kept live by the dashboard's server-sent events (companion/cafe/live.py):
// only what changed arrives, and this script puts it in place. It decides nothing about the games.
"use strict";
const main = document.querySelector("main");
const badge = document.getElementById("live");

function tick() {
  const now = Date.now();
  for (const el of document.querySelectorAll(".clock[data-started]")) {
    const s = Math.max(0, Math.floor((now - Date.parse(el.dataset.started)) / 1000));
    const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
    el.textContent = (h ? h + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
  }
}

// the player whose turn it is, in bold, as the tile's "Turn: ..." names them
function markTurn(tile) {
  const turn = tile.querySelector('[data-role="turn"]');
  for (const p of tile.querySelectorAll('[data-slot="players"] > span')) {
    p.classList.toggle("turn", turn !== null && p.textContent === turn.textContent);
  }
}

function fromHtml(html) {
  const box = document.createElement("template");
  box.innerHTML = html.trim();
  return box.content.firstElementChild;
}

// keep children ordered by their data-sort: ascending (tiles) or descending (plays)
function place(parent, el, descending) {
  const key = el.dataset.sort;
  for (const other of parent.children) {
    if (other === el || other.dataset.sort === undefined) continue;
    if (descending ? other.dataset.sort < key : other.dataset.sort > key) {
      parent.insertBefore(el, other);
      return;
    }
  }
  const tail = parent.querySelector(":scope > .empty");
  parent.insertBefore(el, tail);
}

function onTiles(diff) {
  const box = document.getElementById("tiles");
  for (const [name, slots] of Object.entries(diff)) {
    let tile = box.querySelector(`article[data-table="${CSS.escape(name)}"]`);
    if (slots === null) {
      if (tile) tile.remove();
      continue;
    }
    if (slots.html !== undefined) {
      const fresh = fromHtml(slots.html);
      if (tile) tile.replaceWith(fresh); else place(box, fresh, false);
      tile = fresh;
    } else if (tile) {
      for (const [slot, html] of Object.entries(slots)) {
        if (slot === "cls") { tile.className = html; continue; }
        const el = tile.querySelector(`[data-slot="${slot}"]`);
        if (el) el.innerHTML = html;
      }
    }
    if (tile) markTurn(tile);
  }
  document.getElementById("no-tables").hidden = box.querySelector("article") !== null;
}

function onPlays(news) {
  const body = document.getElementById("play-rows");
  for (const [id, sort, html] of news.rows) {
    const fresh = fromHtml(`<table><tbody>${html}</tbody></table>`).querySelector("tr");
    const old = body.querySelector(`tr[data-play="${CSS.escape(id)}"]`);
    if (old) old.remove();
    place(body, fresh, true);
  }
  const keep = Number(body.dataset.keep);
  while (body.children.length > keep) body.lastElementChild.remove();
  document.getElementById("no-plays").hidden = body.children.length > 0;
}

const lang = main.dataset.lang;
const events = new EventSource(`/events?lang=${lang}&since=${encodeURIComponent(main.dataset.since)}`);
const banner = document.getElementById("banner");
// the badge says "live" only while the page hears the dashboard AND the dashboard records (health)
function show(state, words, cls) { badge.textContent = words; badge.className = "badge " + cls; badge.dataset.state = state; }
events.onerror = () => show("lost", badge.dataset.lost, "warn");
events.addEventListener("health", (e) => {
  const h = JSON.parse(e.data);
  show(h.state, h.badge, h.state === "live" ? "ok" : "bad");
  banner.textContent = h.banner;
  banner.hidden = !h.banner;
});
events.addEventListener("tiles", (e) => { onTiles(JSON.parse(e.data)); tick(); });
events.addEventListener("plays", (e) => onPlays(JSON.parse(e.data)));
events.addEventListener("figures", (e) => { document.getElementById("figures").innerHTML = e.data; });
events.addEventListener("reload", () => { events.close(); location.reload(); });
for (const tile of document.querySelectorAll("article.tile")) markTurn(tile);
document.body.dataset.ready = "yes";
tick();
setInterval(tick, 1000);

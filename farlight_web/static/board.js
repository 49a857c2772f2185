// The board as SVG, drawn from the API's view (farlight_env.view.model.BoardView), with the
// layout of render_rgb (1280x800: station, missions, one panel per seat with its ship).
// A narrow layout stacks the same panels for small windows. Nothing here decides what a seat
// may see: the view already holds only that.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const C = {
  bg: "#101422", panel: "#1c2236", edge: "#3a4464", text: "#ecf0f8", dim: "#929cb6",
  ink: "#121212", stub: "#fad25a", gold: "#f6ce54", hi: "#ffe278", bio: "#78e278",
  regular: "#1c5c66", climactic: "#7c2670",
};
const SEATS = ["#e24e4e", "#488cee", "#46be64", "#ecbe30", "#b664e2"];
const CATEGORY = {
  engine: "#a8542c", bio: "#2c7844", science: "#2c58a4", crew: "#846832", tech: "#6e4092",
  hull: "#565c6c",
};
const ICON = {
  crew: ["#f6ce54", "C"], science: ["#6ec4ff", "S"], upgrade: ["#ff9640", "U"],
  overhaul: ["#fa5656", "O"],
};
const UP = 1, RIGHT = 2, DOWN = 4, LEFT = 8;

function el(parent, tag, attrs, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
function rect(p, x, y, w, h, fill, stroke, r = 8, sw = 2) {
  return el(p, "rect", { x, y, width: Math.max(0, w), height: Math.max(0, h), rx: r,
    fill: fill || "none", stroke: stroke || "none", "stroke-width": sw });
}
function text(p, x, y, s, size = 11, fill = C.text, anchor = "start", extra = {}) {
  return el(p, "text", { x, y, "font-size": size, fill, "text-anchor": anchor,
    "dominant-baseline": "hanging", ...extra }, s);
}
function clip(s, max) { return s.length > max ? s.slice(0, Math.max(1, max - 1)) + "." : s; }

function stubs(p, x, y, w, h, mask, len, thick) {
  const cx = x + w / 2, cy = y + h / 2, hl = len / 2, ht = thick / 2;
  if (mask & UP) rect(p, cx - hl, y - ht, len, thick, C.stub, null, 1, 0);
  if (mask & DOWN) rect(p, cx - hl, y + h - ht, len, thick, C.stub, null, 1, 0);
  if (mask & LEFT) rect(p, x - ht, cy - hl, thick, len, C.stub, null, 1, 0);
  if (mask & RIGHT) rect(p, x + w - ht, cy - hl, thick, len, C.stub, null, 1, 0);
}
function die(p, x, y, size, value) {
  rect(p, x, y, size, size, "#fafaf4", "#282828", Math.max(2, size / 5), 1);
  text(p, x + size / 2, y + size * 0.14, value === null ? "?" : String(value),
    Math.max(8, size * 0.72), C.ink, "middle", { "font-weight": "bold" });
}
function icon(p, x, y, size, kind, everyRound) {
  const [fill, letter] = ICON[kind] || ["#ccc", "?"];
  if (everyRound) rect(p, x, y, size, size, fill, C.ink, Math.max(2, size / 5), 1);
  else el(p, "circle", { cx: x + size / 2, cy: y + size / 2, r: size / 2, fill, stroke: C.ink });
  text(p, x + size / 2, y + size * 0.18, letter, size * 0.66, C.ink, "middle",
    { "font-weight": "bold" });
}
function leaves(p, x, y, size, count) {
  for (let i = 0; i < count; i++) {
    el(p, "ellipse", { cx: x + i * size * 0.55 + size * 0.4, cy: y + size / 2, rx: size * 0.4,
      ry: size / 2, fill: C.bio, stroke: "#144614" });
  }
  return size * 0.8 + size * 0.55 * (count - 1);
}
function tile(p, x, y, w, h, seat, value, crew) {
  rect(p, x, y, w, h, SEATS[seat % 5], "#0a0a0a", 3, 1);
  text(p, x + w / 2, y + h * 0.16 - (crew ? 2 : 0), value === null ? "?" : String(value),
    Math.max(8, Math.min(13, h * 0.55, w * 0.95)), "#0a0a0a", "middle", { "font-weight": "bold" });
  if (crew) el(p, "circle", { cx: x + w / 2, cy: y + h - 4, r: 2.2, fill: "#fff", stroke: "#000" });
}

function bids(p, groups, x0, y0, x1, y1, tileW = 17) {
  if (!groups || !groups.length) return;
  const count = groups.reduce((n, g) => n + g.tiles.length, 0);
  const avail = (x1 - x0) - 5 * (groups.length - 1);
  const rows = count * (tileW + 2) <= avail ? 1 : 2;
  const h = Math.min(24, rows === 1 ? y1 - y0 : (y1 - y0 - 2) / 2);
  const perRow = Math.ceil(count / rows);
  const w = Math.min(tileW, (avail - 2 * perRow) / perRow);
  let x = x0, y = y0, placed = 0;
  for (const g of groups) {
    for (const t of g.tiles) {
      if (rows === 2 && placed === perRow) { x = x0; y = y0 + h + 2; }
      tile(p, x, y, w, h, g.seat, t.value, t.crew);
      x += w + 2; placed += 1;
    }
    x += 5;
  }
}

function target(p, slot, x, y, w, h, opts) {
  // A clickable outline over a bidding target, when the human may bid there now.
  if (!opts.bidSlots || !opts.bidSlots.has(slot)) return;
  const r = rect(p, x - 2, y - 2, w + 4, h + 4, "rgba(255,226,120,0.08)", C.hi, 10, 3);
  r.setAttribute("class", "target clickable" + (opts.chosenSlot === slot ? " chosen" : ""));
  r.setAttribute("data-slot", slot);
  r.addEventListener("click", () => opts.onTarget(slot));
}

function partCard(p, space, x, y, w, h, opts) {
  const part = space.part;
  const g = el(p, "g", { class: "space", "data-slot": space.slot });
  if (!part) {
    rect(g, x, y, w, h, null, C.edge);
    text(g, x + w / 2, y + h / 2 - 6, `#${space.slot}  empty`, 11, C.dim, "middle");
    return;
  }
  const colour = CATEGORY[part.category];
  rect(g, x, y, w, h, colour, "#ffffff55");
  rect(g, x + 3, y + 3, w - 6, 37, "#00000040", null, 6, 0);
  stubs(g, x, y, w, h, part.mask, 28, 8);
  text(g, x + w / 2, y + 9, clip(part.name, Math.floor(w / 6.3)), 12, C.text, "middle");
  let rx = x + w - 8;
  if (part.cost) {
    el(g, "circle", { cx: rx - 10, cy: y + 57, r: 10, fill: C.gold, stroke: "#463000",
      "stroke-width": 2 });
    text(g, rx - 10, y + 50, String(part.cost), 12, "#322000", "middle");
    rx -= 24;
  }
  text(g, rx, y + 52, `#${space.slot}`, 10, "#bcc0c6", "end");
  let ix = x + 9;
  for (const ic of part.icons) { icon(g, ix, y + 47, 20, ic.kind, ic.every_round); ix += 24; }
  if (part.biotech) leaves(g, ix + 2, y + 47, 20, part.biotech);
  let dx = x + 9;
  for (const v of part.dice) { die(g, dx, y + 72, 24, v); dx += 29; }
  if (space.bonus) text(g, x + w - 8, y + 78, `+${space.bonus} crew`, 10, C.gold, "end");
  bids(g, space.bids, x + 8, y + h - 29, x + w - 8, y + h - 7);
  target(g, space.slot, x, y, w, h, opts);
}

function station(p, view, box, opts, narrow) {
  const [x0, y0, x1, y1] = box;
  rect(p, x0, y0, x1 - x0, y1 - y0, C.panel, C.edge, 10, 1);
  text(p, x0 + 12, y0 + 8, "STATION", 14);
  text(p, x0 + 84, y0 + 11, `deck ${view.deck}`, 10, C.dim);
  if (!narrow) {
    text(p, x1 - 12, y0 + 11, "square: every round   circle: once   coin: crew to install", 10,
      C.dim, "end");
  }
  const gap = 14, cardH = 132, top = y0 + 32;
  const cols = narrow ? 3 : Math.ceil(view.num_spaces / 2);
  const rows = Math.ceil(view.num_spaces / cols);
  const cardW = (x1 - x0 - 24 - gap * (cols - 1)) / cols;
  view.station.forEach((space, slot) => {
    const r = Math.floor(slot / cols), c = slot % cols;
    partCard(p, space, x0 + 12 + c * (cardW + gap), top + r * (cardH + gap), cardW, cardH, opts);
  });
  const fy = top + rows * (cardH + gap) - 2, perRow = narrow ? 2 : 4;
  const fw = (x1 - x0 - 24 - gap * (perRow - 1)) / perRow;
  const fh = narrow ? 56 : y1 - 8 - fy;
  view.facilities.forEach((f, i) => {
    const fx = x0 + 12 + (i % perRow) * (fw + gap), fyy = fy + Math.floor(i / perRow) * (fh + 8);
    const g = el(p, "g", { class: "facility", "data-slot": f.slot });
    rect(g, fx, fyy, fw, fh, "#343a50", "#707a98");
    text(g, fx + 9, fyy + 7, f.name, 13);
    text(g, fx + fw - 9, fyy + 9, f.effect, 11, C.dim, "end");
    bids(g, f.bids, fx + 9, fyy + 27, fx + fw - 9, fyy + fh - 7);
    target(g, f.slot, fx, fyy, fw, fh, opts);
  });
}

// The narrow station's height: its rows of cards and two rows of facilities.
function narrowStationHeight(view) {
  return 32 + Math.ceil(view.num_spaces / 3) * (132 + 14) - 2 + 2 * (56 + 8) + 4;
}

// A mission's requirements as a row of badges (engines, bio-tech, science) from x to at most
// x + width: at `size` when they fit, shrunk until they do otherwise (five requirements on a
// lower card need it). Every length is a multiple of the size, text widths estimated.
function requirements(p, x, y, m, size, width) {
  const label = (n) => `x${n}`;
  const textW = (s, font) => s.length * 0.64 * font; // DejaVu Sans: digits 0.64 em, x 0.59
  const units = m.engines.length * (1.45 + 0.17)
    + (m.biotech ? 0.8 + 0.11 + textW(label(m.biotech), 0.65) + 0.33 : 0)
    + (m.science ? 1 + 0.11 + textW(label(m.science), 0.65) : 0);
  const s = units > 0 ? Math.min(size, (width - 1) / units) : size;
  const row = el(p, "g", { class: "requirements" });
  for (const v of m.engines) {
    const b = el(row, "g", { class: "badge engine" });
    rect(b, x, y, s * 1.45, s, "#fafaf4", "#282828", Math.min(4, s / 4), 1);
    text(b, x + s * 0.72, y + s * 0.15, `${v}+`, s * 0.7, C.ink, "middle");
    x += s * (1.45 + 0.17);
  }
  if (m.biotech) {
    const b = el(row, "g", { class: "badge bio" });
    x += leaves(b, x, y, s, 1) + s * 0.11;
    text(b, x, y + s * 0.2, label(m.biotech), s * 0.65);
    x += textW(label(m.biotech), s * 0.65) + s * 0.33;
  }
  if (m.science) {
    const b = el(row, "g", { class: "badge science" });
    icon(b, x, y, s, "science", true);
    text(b, x + s * 1.11, y + s * 0.2, label(m.science), s * 0.65);
  }
}

function missions(p, view, box, opts) {
  const [x0, y0, x1, y1] = box;
  rect(p, x0, y0, x1 - x0, y1 - y0, C.panel, C.edge, 10, 1);
  text(p, x0 + 12, y0 + 8, "MISSIONS", 14);
  text(p, x1 - 12, y0 + 11, "gold frame: available   purple: climactic", 10, C.dim, "end");
  const gap = 10, colW = (x1 - x0 - 20 - 2 * gap) / 3;
  view.stacks.forEach((stack, s) => {
    const cx = x0 + 10 + s * (colW + gap), cy = y0 + 32;
    const g = el(p, "g", { class: "stack", "data-slot": stack.slot });
    if (!stack.missions.length) {
      rect(g, cx, cy, colW, 172, null, C.edge);
      text(g, cx + colW / 2, cy + 80, "stack empty", 11, C.dim, "middle");
      return;
    }
    const m = stack.missions[0];
    const top = el(g, "g", { class: "mission top" });
    rect(top, cx, cy, colW, 172, m.climactic ? C.climactic : C.regular, C.hi, 8, 3)
      .setAttribute("class", "card");
    text(top, cx + 9, cy + 7, `stack ${s}`, 10, C.dim);
    if (m.climactic) text(top, cx + colW - 9, cy + 7, "CLIMACTIC", 10, "#ffb0f0", "end");
    text(top, cx + colW / 2, cy + 24, clip(m.name, Math.floor(colW / 7.2)), 12, C.text, "middle");
    el(top, "circle", { cx: cx + colW / 2, cy: cy + 76, r: 18, fill: "#faf0c8", stroke: "#5a4614",
      "stroke-width": 2 });
    text(top, cx + colW / 2, cy + 65, String(m.value), 20, "#322400", "middle");
    requirements(top, cx + 9, cy + 102, m, 18, colW - 18);
    if (stack.resolving) {
      rect(top, cx + 8, cy + 126, colW - 16, 15, "#dc3c3c", null, 5, 0);
      text(top, cx + colW / 2, cy + 128, "RESOLVING", 10, C.text, "middle");
    }
    bids(top, stack.bids, cx + 9, cy + 144, cx + colW - 9, cy + 166);
    target(top, stack.slot, cx, cy, colW, 172, opts);
    let ny = cy + 180;
    for (const below of stack.missions.slice(1)) {
      if (ny + 52 > y1 - 4) break;
      const card = el(g, "g", { class: "mission below" });
      rect(card, cx + 4, ny, colW - 8, 52, below.climactic ? "#601d57" : "#15474f", "#ffffff40",
        6, 1).setAttribute("class", "card");
      text(card, cx + 11, ny + 6, clip(below.name, Math.floor((colW - 44) / 5.6)), 10);
      text(card, cx + colW - 11, ny + 4, String(below.value), 14, "#faf0c8", "end");
      requirements(card, cx + 11, ny + 26, below, 16, colW - 22);
      ny += 58;
    }
  });
}

// The part's initials, as render_paint's ship cells show them ("Crew Quarters": CQ).
function initials(name) {
  const words = name.replaceAll("-", " ").split(/\s+/).filter((w) => /^[\p{L}\p{N}]/u.test(w));
  return words.slice(0, 3).map((w) => w[0]).join("").toUpperCase();
}

// What an installed part's ship cell shows, as render_paint's ship_cell_sprite draws it: its
// initials, then one icon: its engine dice, else its bio-tech leaves, else its first benefit
// icon (the station's C, S, U, O), else (a hull part, none of these) a hull plate.
// x, y, inner: the cell's card inside the grid square of `size`.
function partGlyphs(p, part, x, y, inner, size) {
  if (size >= 34) text(p, x + 4, y + 3, initials(part.name), size * 0.2, C.text, "start",
    { class: "initials" });
  const first = part.icons[0];
  const kind = part.dice.length ? "engine" : part.biotech ? "bio" : first ? first.kind : "hull";
  const g = el(p, "g", { class: "part-icon", "data-kind": kind });
  const isz = Math.max(6, inner * 0.32), bottom = y + inner - 3;
  if (part.dice.length) {
    const ds = Math.min(inner * 0.44, 20);
    part.dice.forEach((v, i) => die(g, x + inner - 3 - ds - i * (ds + 2), bottom - ds, ds, v));
  } else if (part.biotech) {
    leaves(g, x + 4, bottom - isz, isz, part.biotech);
  } else if (first) {
    icon(g, x + 4, bottom - isz, isz, first.kind, first.every_round);
  } else {
    const cx = x + 4 + isz / 2, cy = bottom - isz / 2, r = isz / 2;
    const corners = [0, 1, 2, 3, 4, 5].map((k) => {
      const a = Math.PI / 6 + (k * Math.PI) / 3;
      return `${(cx + r * Math.cos(a)).toFixed(1)},${(cy + r * Math.sin(a)).toFixed(1)}`;
    });
    el(g, "polygon", { points: corners.join(" "), fill: "#b8bfd0", stroke: C.ink });
    el(g, "circle", { cx, cy, r: r * 0.3, fill: C.ink });
  }
}

function ship(p, panel, box, opts) {
  const [x0, y0, x1, y1] = box;
  const cells = panel.ship.cells;
  const installs = panel.you ? opts.installs || [] : [];
  const rows = cells.map((c) => c.row).concat(installs.map((a) => a.row));
  const cols = cells.map((c) => c.col).concat(installs.map((a) => a.col));
  const r0 = Math.min(...rows) - 1, r1 = Math.max(...rows) + 1;
  const c0 = Math.min(...cols) - 1, c1 = Math.max(...cols) + 1;
  const nr = r1 - r0 + 1, nc = c1 - c0 + 1;
  const size = Math.max(4, Math.floor(Math.min(76, (x1 - x0) / nc, (y1 - y0) / nr)));
  const ox = x0 + ((x1 - x0) - size * nc) / 2, oy = y0 + ((y1 - y0) - size * nr) / 2;
  const half = panel.ship.half, inset = Math.max(3, Math.round(size * 0.1));
  const at = new Map(cells.map((c) => [`${c.row},${c.col}`, c]));
  const g = el(p, "g", { class: "ship", "data-seat": panel.seat });
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const gx = ox + (c - c0) * size, gy = oy + (r - r0) * size;
      const cell = at.get(`${r},${c}`);
      const inner = size - 2 * inset;
      if (!cell) {
        if (Math.abs(r) <= half && Math.abs(c) <= half) {
          rect(g, gx + inset, gy + inset, inner, inner, null, "#282f48", 2, 1);
        }
        continue;
      }
      const part = cell.part;
      const fill = part ? CATEGORY[part.category] : SEATS[panel.seat % 5];
      const name = part ? part.name : "Primary Core";
      const piece = el(g, "g", { class: part ? "ship-cell" : "ship-core", role: "img",
        "aria-label": name });
      el(piece, "title", {}, name);
      rect(piece, gx + inset, gy + inset, inner, inner, fill, part ? "#ffffff55" : "#fff", 5, 2);
      stubs(piece, gx + inset, gy + inset, inner, inner, cell.mask, size * 0.34,
        Math.max(3, size * 0.11));
      if (!part) {
        text(piece, gx + size / 2, gy + size / 2 - size * 0.1, "CORE", Math.max(7, size * 0.2),
          C.text, "middle");
        continue;
      }
      piece.setAttribute("data-part", part.id);
      partGlyphs(piece, part, gx + inset, gy + inset, inner, size);
    }
  }
  for (const a of installs) {
    const gx = ox + (a.col - c0) * size, gy = oy + (a.row - r0) * size;
    const r = rect(g, gx + inset, gy + inset, size - 2 * inset, size - 2 * inset,
      "rgba(255,226,120,0.25)", C.hi, 4, 3);
    r.setAttribute("class", "install-cell clickable");
    r.setAttribute("data-index", a.index);
    r.setAttribute("stroke-dasharray", "5 3");
    el(r, "title", {}, a.label);
    r.addEventListener("click", () => opts.onAction(a.index));
  }
}

function player(p, panel, box, opts) {
  const [x0, y0, x1, y1] = box;
  const colour = SEATS[panel.seat % 5];
  rect(p, x0, y0, x1 - x0, y1 - y0, C.panel, panel.acting ? C.hi : colour, 10,
    panel.acting ? 3 : 2);
  rect(p, x0 + 3, y0 + 3, x1 - x0 - 6, 24, colour + "b8", null, 8, 0);
  const name = opts.names ? ` ${opts.names[panel.seat]}` : "";
  text(p, x0 + 11, y0 + 8, clip(`P${panel.seat}${panel.you ? " (you)" : name}`, 22), 13);
  let tags = (panel.first ? "FIRST " : "") + (panel.acting ? "TO ACT" : "");
  text(p, x0 + (x1 - x0) / 2, y0 + 9, tags.trim(), 9, C.hi, "middle");
  text(p, x1 - 11, y0 + 6, `${panel.points} pts`, 15, C.text, "end");
  let y = y0 + 34;
  const bio = panel.temp_biotech ? `${panel.biotech} (+${panel.temp_biotech})` : panel.biotech;
  text(p, x0 + 11, y, `crew ${panel.crew}  sci ${panel.science}  bio ${bio}`, 11);
  if (panel.engines.length) {
    let x = x0 + 11 + 150;
    for (const v of panel.engines) { if (x + 14 > x1 - 8) break; die(p, x, y - 1, 14, v); x += 16; }
  }
  y += 19;
  text(p, x0 + 11, y + 3, "hand", 10, C.dim);
  let tx = x0 + 42;
  const hand = panel.hand !== null ? panel.hand.slice() : [];
  while (hand.length < panel.hand_count) hand.push(null);
  const handGroup = el(p, "g", { class: "hand", "data-seat": panel.seat });
  for (const t of hand) { tile(handGroup, tx, y, 15, 17, panel.seat, t, false); tx += 17; }
  const [open, linked, blocked] = panel.connectors;
  text(p, x1 - 11, y + 3, `open ${open} linked ${linked} blocked ${blocked}`, 10, C.dim, "end");
  y += 22;
  if (panel.pending.length) {
    const names = panel.pending.map((pt) => pt.name + (pt.id === panel.selected ? " (placing)" : ""));
    text(p, x0 + 11, y, clip("pending: " + names.join(", "), Math.floor((x1 - x0) / 5.5)), 10,
      C.hi);
    y += 14;
  }
  ship(p, panel, [x0 + 6, y + 2, x1 - 6, y1 - 6], opts);
}

function header(p, view, width, narrow) {
  rect(p, 0, 0, width, narrow ? 42 : 28, "#0a0c16", null, 0, 0);
  text(p, 12, 6, "FARLIGHT", 16, C.hi);
  const status = view.current_player === null
    ? `Round ${view.round} | game over: ${view.note}`
    : `Round ${view.round} | ${view.phase} | to act: P${view.current_player} (${view.note})`;
  text(p, 104, 8, clip(status, narrow ? 62 : 90), 12);
  const who = view.viewer === null ? "spectator" : `view of P${view.viewer}`;
  const awards = `Awards: ${view.awards_up.join(", ")} (+${view.awards_down} face down) | ${who}`;
  if (narrow) text(p, 12, 26, clip(awards, 80), 11, C.dim);
  else text(p, width - 12, 8, awards, 12, C.text, "end");
}

function gameOver(p, view, cx, y0) {
  const f = view.final;
  if (!f) return;
  const h = 124 + 21 * f.rows.length, x0 = cx - 240;
  const g = el(p, "g", { class: "game-over" });
  rect(g, x0, y0, 480, h, "#0c0e1aee", C.hi, 12, 3);
  text(g, cx, y0 + 12, "GAME OVER", 20, C.hi, "middle");
  text(g, cx, y0 + 40, `${f.reason} (round ${f.round})`, 11, C.dim, "middle");
  const heads = ["player", "missions", "awards", "tokens", "total"];
  const cols = heads.map((_, i) => x0 + 40 + i * (420 / 5));
  heads.forEach((hd, i) => text(g, cols[i], y0 + 64, hd, 11, C.dim));
  let y = y0 + 64;
  for (const row of f.rows) {
    y += 21;
    const vals = [`P${row.seat}${f.winners.includes(row.seat) ? "  WIN" : ""}`, row.missions,
      row.awards, row.tokens, row.total];
    vals.forEach((v, i) => text(g, cols[i], y, String(v), 13, i ? C.text : SEATS[row.seat % 5]));
  }
  const label = f.winners.length === 1 ? "Winner" : "Shared victory";
  text(g, cx, y + 30, `${label}: ${f.winners.map((s) => "P" + s).join(", ")}`, 15, C.hi, "middle");
}

// Draw `view` into `container` (replacing its content). opts: narrow, bidSlots (Set of slots
// the human may bid on), chosenSlot, installs ([{index,row,col,label}]), onTarget(slot),
// onAction(index), names (seat labels), hideFinal. Wide: render_rgb's 1280x800 layout.
// Narrow: 520 wide, the same panels stacked (station in 3 columns, one seat per row).
function drawBoard(container, view, opts = {}) {
  const n = view.num_players;
  const narrow = !!opts.narrow;
  const width = narrow ? 520 : 1280;
  const top = narrow ? 48 : 34;
  const split = narrow ? top + narrowStationHeight(view) : 432;
  const below = Math.max(0, ...view.stacks.map((s) => s.missions.length - 1));
  const missionH = narrow ? 32 + 172 + 8 + 58 * below : 0;
  const panelH = narrow ? 300 : 352;
  const playersTop = narrow ? split + 8 + missionH + 8 : split + 8;
  const height = narrow ? playersTop + n * (panelH + 8) : 800;
  const svg = el(null, "svg", { viewBox: `0 0 ${width} ${height}`, class: "board",
    role: "img", "aria-label": "Farlight board", "font-family": "DejaVu Sans, sans-serif" });
  rect(svg, 0, 0, width, height, C.bg, null, 0, 0);
  header(svg, view, width, narrow);
  station(svg, view, [8, top, narrow ? width - 8 : 812, split], opts, narrow);
  const missionBox = narrow ? [8, split + 8, width - 8, split + 8 + missionH]
    : [820, top, width - 8, split];
  missions(svg, view, missionBox, opts);
  if (narrow) {
    view.players.forEach((panel, seat) => {
      const py = playersTop + seat * (panelH + 8);
      player(svg, panel, [8, py, width - 8, py + panelH], opts);
    });
  } else {
    const gap = 8, panelW = (width - 16 - gap * (n - 1)) / n;
    view.players.forEach((panel, seat) => {
      const px = 8 + seat * (panelW + gap);
      player(svg, panel, [px, split + 8, px + panelW, height - 8], opts);
    });
  }
  if (!opts.hideFinal) gameOver(svg, view, width / 2, 110);
  container.replaceChildren(svg);
  return svg;
}
window.drawBoard = drawBoard;

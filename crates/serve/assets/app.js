// gpuledger's browser view. It draws what `gpuledger serve` publishes: /api/v1/snapshot (the
// snapshot contract) and /api/v1/history (the server's ring of recent samples). It computes no
// accounting: unattributed, over-attribution, estimates and their floors all come from the JSON;
// here they are only laid out. Text from the machine is only ever set as textContent.
'use strict';
(function () {
  const NS = 'http://www.w3.org/2000/svg';
  // The text views' words (/api/v1/words, from gpuledger_views::web): read once, before the
  // first render, so the page spells a fact as the terminal does.
  let W = null;
  let NA = 'n/a';
  // The round's sentences the snapshot's JSON carries in English (notes, reasons, the sources'
  // findings), in the page's language: /api/v1/said, `{English: words}`. A sentence not there
  // (the system's own words, a replayed recording's) is shown as the JSON has it.
  let SAID = {};
  const T = (s) => (s != null && Object.prototype.hasOwnProperty.call(SAID, s) ? SAID[s] : s);
  const PALETTE = 7; // colour slots c0..c6 (Okabe–Ito); more processes share "other"
  const st = {
    snap: null, samples: [], lastT: null, windowMs: 15 * 60 * 1000, intervalMs: null,
    replay: null, sort: { key: 'mem', dir: -1 }, filter: '', selected: null, focusKey: null,
    colors: new Map(), timer: null, failedSince: null, renders: 0, updatedAt: null,
    open: new Set(), picked: false,
  };

  // ---- small DOM helpers -----------------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function add(parent, ...kids) { for (const k of kids) if (k) parent.append(k); return parent; }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }

  // ---- words and numbers: the same spellings as the terminal views -------------------------
  // Rust formats an exact tie to even (2.5 -> "2"); toFixed rounds it up. Match Rust.
  function fixed(v, d) {
    const s = v * 10 ** d;
    const f = Math.floor(s);
    if (s - f === 0.5 && f % 2 === 0) return (f / 10 ** d).toFixed(d);
    return v.toFixed(d);
  }
  // gpuledger_model::units::human_bytes
  function bytes(b) {
    if (b == null) return NA;
    if (b < 1024) return b + ' B';
    const units = W.byte_units;
    let v = b;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    const d = v >= 100 || Number.isInteger(v) ? 0 : v >= 10 ? 1 : 2;
    return fixed(v, d) + ' ' + units[i];
  }
  // The page's own sentences: `page-…` messages of gpuledger_lang's catalogues, sent in the
  // page's language with /api/v1/words; a message's `{$name}` values are filled in here.
  const fillIn = (text, args) => text.replace(/\{\$(\w+)\}/g, (m, k) => (args && k in args ? String(args[k]) : m));
  const say = (key, args) => fillIn(W.page[key] || key, args);
  // A label before its text: "Why: …", "原因：…" (a full-width colon holds its own space).
  const labelled = (key, args) => { const s = say(key, args); return s.endsWith('：') ? s : s + ' '; };
  // The notes: the same messages as `gpuledger snapshot` writes (words.notes).
  const N = (key, args) => fillIn(W.notes[key], args);
  const pct = (v) => (v == null ? NA : v + '%');
  const watts = (v) => (v == null ? NA : fixed(v, 0) + ' W');
  const AI = ['llama-cpp', 'ollama', 'ollama-runner', 'lm-studio', 'vllm', 'sglang', 'pytorch', 'mlx', 'comfyui'];
  // Evidence::shown: a sentence that starts with its kind's own words does not say them twice.
  function shown(text, kind) {
    if (text.slice(0, kind.length).toLowerCase() !== kind.toLowerCase()) return text;
    const rest = text.slice(kind.length);
    const r = rest.startsWith(' ') ? rest.slice(1) : rest.startsWith(': ') ? rest.slice(2) : null;
    return r ? r : text;
  }
  // Workload::short_label
  function workloadLabel(w) {
    if (!w) return NA; // not identified: unknown, as the table says
    let s = W.kinds[w.kind] || w.kind;
    if (w.model_name) {
      s += ' · ' + w.model_name;
    } else if (w.model) {
      let base = w.model.split(/[/\\]/).pop();
      if (base.endsWith('.gguf')) base = base.slice(0, -5);
      s += ' · ' + base;
    }
    if (w.member) s += ' · ' + R(w.member.role);
    return s;
  }
  // A member's role in the page's language: its leading words (views::labels::role_label).
  function R(role) {
    for (const [words, said] of Object.entries(W.roles || {}).sort((a, b) => b[0].length - a[0].length)) {
      if (role === words || role.startsWith(words + ' ')) return said + role.slice(words.length);
    }
    return role;
  }
  const procName = (p) => p.name || NA;
  const gpuOf = (uuid) => st.snap.devices.find((d) => d.uuid === uuid);
  const gpuLabel = (uuid) => { const d = gpuOf(uuid); return d ? String(d.index) : NA; };
  function command(p) {
    if (p.cmdline) return p.cmdline.join(' ');
    return p.exe || NA;
  }
  const known = (p) => p.usage.reduce((a, u) => a + (u.memory_bytes || 0), 0);

  // The same pid keeps its colour on the cards, in the table and on the curves.
  function assignColors(snap) {
    const live = new Set(snap.processes.map((p) => p.pid));
    for (const pid of [...st.colors.keys()]) if (!live.has(pid)) st.colors.delete(pid);
    const used = new Set(st.colors.values());
    const byMemory = [...snap.processes].sort((a, b) => known(b) - known(a) || a.pid - b.pid);
    for (const p of byMemory) {
      if (st.colors.has(p.pid) || known(p) === 0) continue;
      let slot = 0;
      while (used.has(slot)) slot++;
      if (slot >= PALETTE) break;
      st.colors.set(p.pid, slot);
      used.add(slot);
    }
  }
  const colorClass = (pid) => (st.colors.has(pid) ? 'c' + st.colors.get(pid) : 'cx');

  // ---- header, status, notes ---------------------------------------------------------------
  function renderHeader(s) {
    const h = s.host;
    const host = h.hostname || say('page-unknown-host');
    $('host').textContent = say('page-on-host', { host }) + (h.wsl ? ' · WSL2' : '');
    $('hostinfo').textContent = [h.os, h.kernel].filter((x) => x).join(' ') + ' · ' + say('page-host-not-collected');
    document.title = 'gpuledger · ' + host;
    const banner = $('replay');
    banner.hidden = !st.replay;
    if (st.replay) banner.textContent = say('page-replay-banner', { path: st.replay, at: s.taken_at });
  }

  function renderStatus() {
    let text;
    if (st.failedSince) {
      text = say('page-status-failed', { time: st.failedSince.toLocaleTimeString(document.documentElement.lang) });
    } else if (st.replay) {
      text = say('page-status-replay', { at: st.snap.taken_at });
    } else {
      text = say('page-status-live', { seconds: st.intervalMs / 1000, at: st.snap.taken_at });
    }
    const s = $('status');
    s.textContent = text;
    s.classList.toggle('bad', !!st.failedSince);
  }

  // gpuledger_views::table's "NOTES AND WHAT WAS NOT SEEN": every null, with its reason.
  function notes(s) {
    const v = s.notes.map(T);
    for (const d of s.devices) {
      for (const [field, why] of Object.entries(d.unavailable || {})) v.push('GPU' + d.index + ' ' + field + ': ' + why);
      const n = d.ledger.unknown_processes;
      if (n > 0) v.push(N(n === 1 ? 'unknown_one' : 'unknown_other', { gpu: d.index, count: n }));
    }
    for (const p of s.processes) {
      for (const u of p.usage) {
        if (u.unavailable_reason) v.push(N('memory_na', { pid: p.pid, name: procName(p), gpu: gpuLabel(u.device), reason: T(u.unavailable_reason) }));
        if (u.engines.unavailable_reason) v.push(N('engines_na', { pid: p.pid, reason: T(u.engines.unavailable_reason) }));
        if (u.accounting_note) v.push(N('process_note', { pid: p.pid, name: procName(p), note: T(u.accounting_note) }));
      }
      if (p.metadata_unavailable) v.push(N('metadata_na', { pid: p.pid, reason: T(p.metadata_unavailable) }));
    }
    return v.filter((x, i) => i === 0 || x !== v[i - 1]);
  }

  function renderNotes(s) {
    const ul = $('notes');
    ul.replaceChildren(...notes(s).map((n) => el('li', null, n)));
    if (!ul.children.length) ul.append(el('li', 'hint', say('page-notes-nothing')));
    $('sources').replaceChildren(...s.sources.map((x) => {
      // `gpuledger snapshot`'s SOURCES line: the name, then its state and detail in words.
      const li = el('li', x.status === 'error' ? 'bad' : null);
      const line = N('source_line', { state: W.source_states[x.status] || x.status, detail: T(x.detail) });
      return add(li, el('b', null, x.name), document.createTextNode(' ' + line));
    }));
  }

  // ---- device cards ------------------------------------------------------------------------
  // Many processes: the largest N by name (N from the room a card has), the rest as one
  // "others" entry, in the legend, the bar and the curves alike.
  const MIN_PX = 3; // narrowest segment drawn on its own; narrower ones join "others"
  function cardWidth(n) {
    const w = $('cards').clientWidth || 800;
    const cols = Math.max(1, Math.min(n, Math.floor((w + 12) / 352)));
    return (w - (cols - 1) * 12) / cols;
  }
  function topN(width) {
    return Math.max(4, Math.min(9, 3 * Math.floor((width - 28) / 232)));
  }
  // rows sorted largest first: the first n by name and the rest summed, or all when one would
  // be left over (an "others" of one says less than its name).
  function split(rows, n) {
    if (rows.length <= n + 1) return { named: rows, rest: null };
    const more = rows.slice(n);
    const known = more.filter((r) => r.bytes != null);
    return { named: rows.slice(0, n), rest: { count: more.length, unknown: more.length - known.length, bytes: known.reduce((a, r) => a + r.bytes, 0) } };
  }
  const othersLabel = (rest) => (rest.unknown ? say('page-others-na', { count: rest.count, na: rest.unknown }) : say('page-others', { count: rest.count }));

  // A workload's member by its runtime and role (`vLLM worker TP1/4`): its workers share one
  // process title, and the role is what tells them apart.
  function legendName(p) {
    const w = p.workload;
    return w && w.member ? (W.kinds[w.kind] || w.kind) + ' ' + R(w.member.role) : procName(p);
  }

  // The drawn widths sum to the used share: a named segment narrower than MIN_PX is widened
  // with room taken from "others", or joins "others" when there is not enough of it; no
  // separator is drawn on a segment too narrow to spare it, so no used memory looks free.
  function ledgerBar(d, sp, px) {
    const l = d.ledger;
    // Ledger: bars are shares of the total, or of the processes' sum when they exceed the device.
    const denom = l.over_attributed ? l.attributed_bytes : d.memory.total_bytes;
    const box = svg('svg', { class: 'ledger', viewBox: '0 0 1000 24', preserveAspectRatio: 'none', role: 'img' });
    if (!denom) {
      box.setAttribute('aria-label', say('page-bar-no-total'));
      return box;
    }
    box.append(svg('rect', { class: 'track', x: 0, y: 0, width: 1000, height: 24 }));
    const unit = (b) => (b / denom) * 1000;
    const minU = (MIN_PX * 1000) / Math.max(px, 1);
    let others = sp.rest ? unit(sp.rest.bytes) : 0;
    let merged = 0;
    let mergedBytes = 0;
    const segs = [];
    for (const r of sp.named) {
      if (r.bytes == null) continue;
      let w = unit(r.bytes);
      if (w < minU && others >= minU - w) {
        others -= minU - w;
        w = minU;
      } else if (w < minU) {
        others += w;
        merged++;
        mergedBytes += r.bytes;
        continue;
      }
      segs.push({ cls: colorClass(r.pid), w, label: r.label + ': ' + bytes(r.bytes), pid: r.pid });
    }
    if (others > 0) {
      const n = (sp.rest ? sp.rest.count : 0) + merged;
      segs.push({ cls: 'oth', w: others, label: say('page-bar-others', { count: n, bytes: bytes((sp.rest ? sp.rest.bytes : 0) + mergedBytes) }) });
    }
    if (l.unattributed_bytes != null) segs.push({ cls: 'unattr', w: unit(l.unattributed_bytes), label: say('page-bar-unattributed', { bytes: bytes(l.unattributed_bytes) }) });
    let x = 0;
    for (const sg of segs) {
      const w = Math.min(1000 - x, sg.w);
      if (w <= 0) continue;
      const wide = (w * px) / 1000 >= 6;
      const r = svg('rect', { class: sg.cls + (wide ? ' sep' : ''), x: x.toFixed(2), y: 0, width: w.toFixed(2), height: 24 });
      if (sg.pid != null) r.dataset.pid = sg.pid;
      r.append(svg('title', {}, sg.label));
      box.append(r);
      x += w;
    }
    box.setAttribute('aria-label', say('page-bar-label', { gpu: d.index }));
    return box;
  }

  function card(d, s, width) {
    const m = d.memory;
    const c = el('article', 'card');
    c.dataset.gpu = d.index;
    add(c, add(el('h3'), el('span', 'idx', 'GPU' + d.index), document.createTextNode(' ' + (d.name || NA))));
    const share = m.used_bytes != null && m.total_bytes ? ' (' + fixed((m.used_bytes * 100) / m.total_bytes, 0) + '%)' : '';
    add(c, add(el('p', 'mem'), el('span', 'used', bytes(m.used_bytes) + ' / ' + bytes(m.total_bytes)), el('span', 'share', share), el('span', 'hint', ' ' + say('page-card-used'))));
    const rows = [];
    for (const p of s.processes) {
      for (const u of p.usage) if (u.device === d.uuid) rows.push({ pid: p.pid, label: legendName(p) + ' (' + p.pid + ')', bytes: u.memory_bytes });
    }
    rows.sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1) || a.pid - b.pid);
    const sp = split(rows, topN(width));
    c.append(ledgerBar(d, sp, st.barPx || width - 28));
    const legend = el('ul', 'legend');
    for (const r of sp.named) {
      const li = add(el('li'), el('i', 'sw ' + (r.bytes == null ? 'na' : colorClass(r.pid))), el('span', 'lab', r.label), el('span', 'num', bytes(r.bytes)));
      li.dataset.pid = r.pid;
      legend.append(li);
    }
    if (sp.rest) {
      const li = add(el('li', 'others'), el('i', 'sw oth'), el('span', 'lab', othersLabel(sp.rest)), el('span', 'num', bytes(sp.rest.bytes)));
      li.title = say('page-others-title');
      legend.append(li);
    }
    const l = d.ledger;
    const un = add(el('li', 'unattributed'), el('i', 'sw unattr'), el('span', 'lab', say('page-unattributed')),
      el('span', 'num', l.unattributed_bytes != null ? bytes(l.unattributed_bytes) : l.over_attributed ? say('page-over-attributed') : NA));
    legend.append(un);
    c.append(legend);
    if (l.over_attributed) {
      c.append(el('p', 'over', say('page-over-attributed-note', { bytes: bytes(l.over_attributed_bytes) })));
    }
    const stats = el('dl', 'stats');
    const suspended = ['suspended', 'suspending'].includes(d.power_state);
    for (const [k, v, cls] of [
      ['GPU%', suspended ? d.power_state : pct(d.utilization.gpu_percent), 'gpu'],
      [say('page-stat-mem-pct'), pct(d.utilization.memory_percent), 'membw'],
      [say('page-stat-temp'), d.temperature_c == null ? NA : d.temperature_c + '°C', 'temp'],
      [say('page-stat-power'), watts(d.power.usage_watts) + ' / ' + watts(d.power.limit_watts), 'power'],
      [say('page-stat-processes'), bytes(l.attributed_bytes), 'attributed'],
    ]) {
      add(stats, add(el('div', cls), el('dt', null, k), el('dd', null, v)));
    }
    c.append(stats);
    c.append(context(d));
    return c;
  }

  // What the snapshot carries about the device beyond its memory; what it does not carry is
  // named, not left out.
  function context(d) {
    const mhz = (v) => (v == null ? NA : v + ' MHz');
    const link = (g, w) => (g == null && w == null ? NA : 'gen ' + (g ?? NA) + ' ×' + (w ?? NA));
    const k = d.clocks || {};
    const e = d.pcie || {};
    const dl = el('dl', 'ctx');
    for (const [t, v] of [
      [say('page-ctx-driver'), d.driver_version || NA], ['PCI', d.pci_bus_id || NA],
      ['PCIe', say('page-ctx-link', { now: link(e.link_gen, e.link_width), max: link(e.max_link_gen, e.max_link_width) })],
      [say('page-ctx-clocks'), say('page-ctx-clock-values', { sm: mhz(k.sm_mhz), memory: mhz(k.memory_mhz) })],
      [say('page-ctx-power-state'), d.power_state || NA],
    ]) add(dl, add(el('div'), el('dt', null, t), el('dd', null, v)));
    return add(el('div'), dl, el('p', 'hint ctx-note', say('page-ctx-not-collected')));
  }

  function renderCards(s) {
    const box = $('cards');
    const width = cardWidth(s.devices.length);
    box.replaceChildren(...s.devices.map((d) => card(d, s, width)));
    // The bar's width in pixels sets the narrowest segment: drawn again once if the guess
    // (the card less its padding) was not what the browser laid out.
    const bar = box.querySelector('svg.ledger');
    const real = bar ? bar.getBoundingClientRect().width : null;
    if (real && Math.abs(real - (st.barPx || width - 28)) > 0.5) {
      st.barPx = real;
      box.replaceChildren(...s.devices.map((d) => card(d, s, width)));
    }
    if (!s.devices.length) box.append(el('p', 'hint', say('page-no-gpu')));
  }

  // ---- the process table -------------------------------------------------------------------
  // Titles come from the words (gpuledger_views::web::COLUMNS, `gpuledger snapshot`'s headings).
  const COLUMNS = [
    { key: 'pid', num: true, text: (r) => String(r.p.pid), val: (r) => r.p.pid },
    { key: 'user', cls: 'wide', text: (r) => r.p.user || NA },
    { key: 'name', cls: 'nm', text: (r) => procName(r.p) },
    { key: 'workload', text: (r) => (r.g ? R(r.p.workload.member.role) : workloadLabel(r.p.workload)) },
    { key: 'gpu', num: true, text: (r) => gpuLabel(r.u.device), val: (r) => { const d = gpuOf(r.u.device); return d ? d.index : -1; } },
    { key: 'mem', num: true, text: (r) => bytes(r.u.memory_bytes), val: (r) => r.u.memory_bytes ?? -1 },
    { key: 'source', cls: 'wide c-source', text: (r) => r.u.memory_source },
    {
      key: 'util', num: true, val: (r) => r.u.engines.sm_percent ?? -1,
      text: (r) => (r.p.rocm_kfd && r.u.engines.sm_percent == null ? NA + ' (kfd)' : pct(r.u.engines.sm_percent)),
    },
    { key: 'cmd', cls: 'wide cmd', text: (r) => command(r.p) },
  ];

  // A workload of several processes (`workload_groups`, as `snapshot --json` has them) is one
  // unit of the table: a row with its total and roles, unfolding to its members' rows.
  function rowsOf(s) {
    const groupOf = new Map();
    for (const g of s.workload_groups || []) for (const pid of g.members) groupOf.set(pid, g);
    const rows = [];
    for (const p of s.processes) for (const u of p.usage) rows.push({ p, u, key: p.pid + '@' + u.device, g: groupOf.get(p.pid) });
    const f = st.filter.toLowerCase();
    const hit = (r) => COLUMNS.some((c) => c.text(r).toLowerCase().includes(f)) || (r.g && r.g.label.toLowerCase().includes(f));
    const shown = f ? rows.filter(hit) : rows;
    const col = COLUMNS.find((c) => c.key === st.sort.key);
    const cmp = col.val ? (a, b) => col.val(a) - col.val(b) : (a, b) => col.text(a).localeCompare(col.text(b));
    shown.sort((a, b) => st.sort.dir * cmp(a, b) || a.p.pid - b.p.pid);
    const units = [];
    const byGroup = new Map();
    for (const r of shown) {
      if (!r.g) { units.push({ rows: [r], lead: r }); continue; }
      if (!byGroup.has(r.g)) { const un = { g: r.g, rows: [], lead: r }; byGroup.set(r.g, un); units.push(un); }
      byGroup.get(r.g).rows.push(r);
    }
    // A group sorts by its total memory, otherwise by its first member in this order.
    const memOf = (un) => (un.g ? un.g.measured_bytes ?? -1 : col.val(un.lead));
    if (col.key === 'mem') units.sort((a, b) => st.sort.dir * (memOf(a) - memOf(b)) || a.lead.p.pid - b.lead.p.pid);
    return { units, total: rows.length };
  }

  // The heading is built once and updated in place, so a focused heading keeps its focus.
  function renderHead() {
    const tr = document.querySelector('#procs thead tr');
    if (tr.children.length !== COLUMNS.length) {
      tr.replaceChildren(...COLUMNS.map((c) => {
        const th = el('th', (c.cls || '') + (c.num ? ' num' : ''));
        th.scope = 'col';
        const b = el('button');
        b.type = 'button';
        b.dataset.key = c.key;
        th.append(b);
        return th;
      }));
    }
    COLUMNS.forEach((c, i) => {
      const th = tr.children[i];
      const on = st.sort.key === c.key;
      th.setAttribute('aria-sort', on ? (st.sort.dir < 0 ? 'descending' : 'ascending') : 'none');
      const text = W.columns[c.key] + (on ? (st.sort.dir < 0 ? ' ▼' : ' ▲') : '');
      if (th.firstChild.textContent !== text) th.firstChild.textContent = text;
    });
  }

  function processRow(r) {
    const tr = el('tr', r.g ? 'member' : null);
    tr.dataset.key = r.key;
    tr.dataset.pid = r.p.pid;
    tr.tabIndex = -1;
    tr.setAttribute('aria-selected', String(r.p.pid === st.selected));
    for (const c of COLUMNS) {
      const td = el('td', (c.cls || '') + (c.num ? ' num' : ''));
      td.dataset.col = c.key;
      if (c.key === 'name') td.append(el('i', 'sw ' + (r.u.memory_bytes == null ? 'na' : colorClass(r.p.pid))));
      // The phone shows the name above the workload (its own column is hidden there).
      if (c.key === 'workload') td.dataset.name = procName(r.p);
      td.append(document.createTextNode(c.text(r)));
      if (c.key === 'cmd' || c.key === 'workload') td.title = r.g ? workloadLabel(r.p.workload) : c.text(r);
      if (c.key === 'mem' && r.u.unavailable_reason) td.title = T(r.u.unavailable_reason);
      tr.append(td);
    }
    return tr;
  }

  function groupRow(un) {
    const g = un.g;
    const open = st.open.has(g.root_pid);
    const tr = el('tr', 'group');
    tr.dataset.key = 'g' + g.root_pid;
    tr.dataset.group = g.root_pid;
    tr.tabIndex = -1;
    const roles = un.rows.filter((r, i, a) => a.findIndex((x) => x.p.pid === r.p.pid) === i).map((r) => R(r.p.workload.member.role));
    const gpus = [...new Set(un.rows.map((r) => gpuLabel(r.u.device)))].join(',');
    const text = {
      pid: String(g.root_pid), user: un.lead.p.user || NA, workload: g.label, gpu: gpus,
      mem: bytes(g.measured_bytes), source: un.lead.u.memory_source, util: '', cmd: roles.join(', '),
    };
    for (const c of COLUMNS) {
      const td = el('td', (c.cls || '') + (c.num ? ' num' : ''));
      td.dataset.col = c.key;
      if (c.key === 'name') {
        const b = el('button', 'fold', (open ? '▾ ' : '▸ ') + say('page-group-members', { count: g.members.length }));
        b.type = 'button';
        b.tabIndex = -1;
        b.setAttribute('aria-expanded', String(open));
        td.append(b);
      } else {
        td.textContent = text[c.key];
      }
      // On a phone, where the name column (and its button) is hidden, the row itself unfolds.
      if (c.key === 'workload') td.dataset.name = (open ? '▾ ' : '▸ ') + say('page-group-members', { count: g.members.length });
      if (c.key === 'cmd') td.title = text.cmd;
      tr.append(td);
    }
    return tr;
  }

  function renderTable(s) {
    // One source for every row (the usual case): named once in the heading, not in each row.
    const sources = new Set(s.processes.flatMap((p) => p.usage.map((u) => u.memory_source)));
    $('procs').classList.toggle('same-source', sources.size === 1);
    $('procs-source').textContent = sources.size === 1 ? ' (' + [...sources][0] + ')' : '';
    renderHead();
    const { units, total } = rowsOf(s);
    const body = document.querySelector('#procs tbody');
    const hadFocus = body.contains(document.activeElement);
    const trs = [];
    for (const un of units) {
      if (!un.g) { trs.push(processRow(un.rows[0])); continue; }
      trs.push(groupRow(un));
      if (st.open.has(un.g.root_pid)) trs.push(...un.rows.map(processRow));
    }
    body.replaceChildren(...trs);
    if (!units.length) {
      const tr = add(el('tr', 'empty'), el('td', 'hint', total ? say('page-table-no-match') : say('page-table-empty')));
      tr.firstChild.colSpan = COLUMNS.length;
      body.append(tr);
    }
    const focusRow = body.querySelector('tr[data-key="' + CSS.escape(st.focusKey || '') + '"]') || body.querySelector('tr[data-key]');
    if (focusRow) {
      focusRow.tabIndex = 0;
      if (hadFocus) focusRow.focus();
    }
  }

  function moveFocus(tr) {
    if (!tr || !tr.dataset.key) return;
    for (const r of tr.parentNode.querySelectorAll('tr[tabindex="0"]')) r.tabIndex = -1;
    tr.tabIndex = 0;
    tr.focus();
    st.focusKey = tr.dataset.key;
  }

  // A group row unfolds (or folds); a process row shows its why. On a narrow screen the why
  // is below the table: a tap brings it into view.
  function select(tr, tapped) {
    if (!tr) return;
    if (tr.dataset.group) {
      moveFocus(tr);
      const root = Number(tr.dataset.group);
      if (!st.open.delete(root)) st.open.add(root);
      renderTable(st.snap);
      return;
    }
    if (!tr.dataset.pid) return;
    moveFocus(tr);
    st.selected = Number(tr.dataset.pid);
    st.picked = true;
    for (const r of tr.parentNode.children) if (r.dataset.pid) r.setAttribute('aria-selected', String(r.dataset.pid === tr.dataset.pid));
    renderWhy(st.snap);
    renderCurves(st.snap);
    if (tapped && window.matchMedia('(max-width: 1100px)').matches) $('h-why').scrollIntoView({ block: 'start' });
  }

  function wireTable() {
    const table = $('procs');
    table.querySelector('thead').addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      const col = COLUMNS.find((c) => c.key === b.dataset.key);
      st.sort = st.sort.key === col.key ? { key: col.key, dir: -st.sort.dir } : { key: col.key, dir: col.num ? -1 : 1 };
      renderTable(st.snap);
    });
    const body = table.querySelector('tbody');
    body.addEventListener('click', (e) => select(e.target.closest('tr'), true));
    body.addEventListener('keydown', (e) => {
      const tr = e.target.closest('tr');
      if (!tr) return;
      const rows = [...body.querySelectorAll('tr[data-key]')];
      const i = rows.indexOf(tr);
      const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: rows.length - 1, PageDown: i + 10, PageUp: i - 10 }[e.key];
      if (to != null) {
        moveFocus(rows[Math.max(0, Math.min(rows.length - 1, to))]);
      } else if (e.key === 'Enter' || e.key === ' ') {
        select(tr, true);
      } else {
        return;
      }
      e.preventDefault();
    });
    const filter = $('filter');
    filter.addEventListener('input', () => { st.filter = filter.value.trim(); renderTable(st.snap); });
    filter.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { filter.value = ''; st.filter = ''; renderTable(st.snap); }
      if (e.key === 'ArrowDown' || e.key === 'Enter') { e.preventDefault(); moveFocus(body.querySelector('tr[data-key]')); }
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === '/' && !e.target.closest('input')) { e.preventDefault(); filter.focus(); }
    });
  }

  // ---- why: measured, reported, estimated side by side, then the evidence --------------------
  function column(cls, title, sub) {
    return add(el('section', 'col ' + cls), add(el('h4', null, title), el('small', null, ' ' + sub)));
  }
  // One figure of a ledger column: the value large, what it is beside it.
  function figure(value, what, cls) {
    return add(el('p', 'fig' + (cls ? ' ' + cls : '')), el('b', null, value), el('span', null, what));
  }
  // A column with no figure: one message per language (English "— no estimate"; a dash glued to
  // a Chinese phrase read as a stray mark), muted like a figure's label.
  function nothing(key) {
    return add(el('p', 'fig'), el('span', null, say(key)));
  }
  function line(k, v, cls) {
    return add(el('p', 'kv' + (cls ? ' ' + cls : '')), el('span', 'k', k), el('span', 'v', v));
  }

  function partsBar(e) {
    const parts = [
      [say('page-part-weights'), e.weights_gpu_bytes, 'p0'], [say('page-part-kv-cache'), e.kv_cache_gpu_bytes, 'p1'],
      [e.compute_label ? T(e.compute_label) : say('page-part-compute'), e.compute_gpu_bytes, 'p2'], [say('page-part-overhead'), e.overhead_gpu_bytes, 'p3'],
    ];
    const sum = parts.reduce((a, p) => a + (p[1] || 0), 0);
    const scale = Math.max(sum, e.total_gpu_bytes) || 1;
    const bar = svg('svg', { class: 'ledger parts', viewBox: '0 0 1000 18', preserveAspectRatio: 'none', role: 'img', 'aria-label': say('page-parts-label') });
    bar.append(svg('rect', { class: 'track', x: 0, y: 0, width: 1000, height: 18 }));
    let x = 0;
    const legend = el('ul', 'legend parts-legend');
    for (const [name, b, cls] of parts) {
      if (b) {
        const w = (b / scale) * 1000;
        bar.append(add(svg('rect', { class: cls, x: x.toFixed(2), y: 0, width: w.toFixed(2), height: 18 }), svg('title', {}, name + ': ' + bytes(b))));
        x += w;
      }
      const li = add(el('li'), el('i', 'sw ' + (b == null ? 'na' : cls)), el('span', 'lab', name), el('span', 'num', bytes(b)));
      li.dataset.part = cls;
      legend.append(li);
    }
    return [bar, legend];
  }

  function estimated(p) {
    const e = p.estimate;
    const col = column('estimated', say('page-col-estimated'), say('page-col-estimated-by'));
    if (!e) {
      const ai = p.workload && AI.includes(p.workload.kind);
      const why = p.no_estimate ? T(p.no_estimate.why) : ai ? say('page-no-estimate-unread', { pid: p.pid }) : say('page-no-recipe');
      return add(col, nothing('page-no-estimate'), el('p', 'hint', why));
    }
    add(col, figure((e.total_is_floor ? '≥ ' : '') + bytes(e.total_gpu_bytes), say('page-total-gpu')),
      el('p', 'src', e.recipe + (e.n_ctx != null ? ' · ' + say('page-context', { n: e.n_ctx }) : '')));
    if (e.total_is_floor) col.append(el('p', 'hint', say('page-floor')));
    return col;
  }

  function measured(p) {
    const col = column('measured', say('page-col-measured'), say('page-col-measured-by'));
    for (const u of p.usage) {
      add(col, figure(bytes(u.memory_bytes), 'GPU' + gpuLabel(u.device) + ' · ' + u.memory_source));
      if (u.unavailable_reason) col.append(el('p', 'hint', T(u.unavailable_reason)));
      for (const [src, b] of Object.entries(u.memory_by_source || {})) col.append(el('p', 'src', src + ': ' + bytes(b)));
    }
    return col;
  }

  // What the runtime said of the process: beside its estimate, or alone where no recipe applies.
  const runtimeFigures = (p) => (p.estimate ? p.estimate.reported : p.no_estimate && p.no_estimate.reported) || [];

  function reported(p) {
    const col = column('reported', say('page-col-reported'), say('page-col-reported-by'));
    const figures = runtimeFigures(p);
    for (const f of figures) {
      const text = f.text && T(f.text);
      const v = f.bytes != null && text ? bytes(f.bytes) + ' (' + text + ')' : f.bytes != null ? bytes(f.bytes) : text || NA;
      add(col, figure(v, T(f.what)), el('p', 'src', f.source));
    }
    if (!figures.length) col.append(nothing('page-nothing-recorded'));
    return col;
  }

  function evidence(p) {
    const w = p.workload;
    const box = el('div', 'evidence');
    if (!w) return add(box, el('p', 'hint', say('page-not-identified')));
    add(box, add(el('h4', null, say('page-evidence')), el('small', null, ' ' + say('page-confidence', { level: W.confidence[w.confidence] || w.confidence }))));
    const ol = el('ol');
    for (const ev of w.evidence) {
      const kind = W.evidence[ev.kind] || ev.kind;
      ol.append(add(el('li'), el('b', null, labelled('page-evidence-kind', { kind })), document.createTextNode(T(ev.showed) !== ev.showed ? T(ev.showed) : shown(ev.showed, kind)), el('span', 'src', ' — ' + ev.source)));
    }
    for (const m of w.missing || []) ol.append(add(el('li', 'missing'), el('b', null, labelled('page-missing')), document.createTextNode(T(m))));
    box.append(ol);
    if (w.member) {
      const m = { role: R(w.member.role), pid: w.member.root_pid, evidence: T(w.member.evidence) };
      box.append(el('p', 'hint', m.pid != null ? say('page-member-of', m) : say('page-member', m)));
    }
    return box;
  }

  // A large measured-vs-estimated gap (`estimate_gaps`: the server finds it and its likely
  // cause as the text views do), in their own sentences (`gap` of /api/v1/words, whose values
  // are left as {$name}, filled by fillIn).
  function gapSentence(g) {
    const G = W.gap;
    const text = fillIn(g.side === 'more' ? G.more : G.less, { measured: bytes(g.measured_bytes), label: '',
      estimated: bytes(g.estimated_bytes), difference: bytes(Math.abs(g.measured_bytes - g.estimated_bytes)) });
    return fillIn(G.with_cause, { text, cause: G.causes[g.cause] || g.cause });
  }

  function gapLines(s, p) {
    const gaps = s.estimate_gaps || [];
    const out = [];
    const own = gaps.find((g) => g.pid === p.pid);
    if (own) out.push(el('p', 'gap', gapSentence(own)));
    const grp = (s.workload_groups || []).find((g) => g.members.includes(p.pid));
    const of = grp && gaps.find((g) => g.root_pid === grp.root_pid);
    if (of) out.push(el('p', 'gap', fillIn(W.gap.workload, { count: String(grp.members.length), text: gapSentence(of) })));
    return out;
  }

  function renderWhy(s) {
    const box = $('why');
    const p = s.processes.find((x) => x.pid === st.selected);
    if (!p) {
      box.replaceChildren(el('p', 'hint', st.selected == null ? say('page-why-select') : say('page-gone', { pid: st.selected })));
      return;
    }
    const head = add(el('h3'), el('i', 'sw ' + colorClass(p.pid)), document.createTextNode(procName(p)), el('span', 'hint', ' ' + say('page-why-pid', { pid: p.pid, user: p.user || NA })));
    const kids = [head, el('p', 'workload', workloadLabel(p.workload))];
    kids.push(add(el('div', 'ledgers'), measured(p), reported(p), estimated(p)));
    if (!runtimeFigures(p).length) {
      kids.push(el('p', 'hint', say('page-no-runtime-figure', { pid: p.pid })));
    }
    const e = p.estimate;
    if (e) {
      kids.push(...partsBar(e));
      if (e.why) kids.push(add(el('p', 'sentence'), el('b', null, labelled('page-why-label')), document.createTextNode(T(e.why))));
      for (const n of e.not_modelled || []) kids.push(el('p', 'hint', say('page-not-modelled', { what: T(n) })));
      kids.push(el('p', 'hint', say('page-overhead-source', { source: T(e.overhead_source) })));
    }
    kids.push(...gapLines(s, p));
    kids.push(evidence(p));
    const facts = el('div', 'facts');
    // Who owns it: the pod, the Slurm job (with its name, user and partition), the unit.
    add(facts, line(say('page-fact-command'), command(p), 'cmd'), p.owner && line(say('page-fact-owner'), p.owner.label),
      p.started_at && line(say('page-fact-started'), p.started_at), p.container && line(say('page-fact-container'), p.container),
      p.listen_ports && p.listen_ports.length && line(say('page-fact-listening'), p.listen_ports.join(', ')));
    kids.push(facts);
    box.replaceChildren(...kids);
  }

  // ---- curves: each device's memory and its top processes over the ring --------------------
  // Memory on the left axis; GPU % (the device's, from the same samples) dashed on the right.
  // The selected process is drawn bold over the others; a pointer over a chart reads out the
  // nearest sample.
  function seriesOf(d, pts, n) {
    const series = [{ cls: 'used', get: (x) => x.dev.used_bytes, label: say('page-curve-used', { gpu: d.index }), num: bytes }];
    const latest = pts.length ? pts[pts.length - 1].procs : [];
    const named = latest.slice(0, n);
    const sel = st.selected;
    if (sel != null && !named.some((q) => q.pid === sel)) {
      const q = [...pts].reverse().map((x) => x.procs.find((y) => y.pid === sel)).find((y) => y);
      if (q) named.push(q);
    }
    const mem = (x, pid) => (x.procs.find((y) => y.pid === pid) || {}).memory_bytes;
    for (const q of named) series.push({ cls: colorClass(q.pid), pid: q.pid, get: (x) => mem(x, q.pid), label: q.name + ' (' + q.pid + ')', num: bytes });
    const inTop = new Set(named.map((q) => q.pid));
    // Others: what the sample summed beyond its top, plus its top processes not drawn here.
    const others = (x) => (x.dev.others_bytes ?? 0) + x.procs.filter((y) => !inTop.has(y.pid)).reduce((a, y) => a + y.memory_bytes, 0);
    const count = (x) => (x.dev.others_count ?? 0) + x.procs.filter((y) => !inTop.has(y.pid)).length;
    if (pts.some((x) => count(x) > 0)) {
      const last = pts[pts.length - 1];
      series.push({ cls: 'oth', get: others, label: say('page-others', { count: count(last) }), num: bytes });
    }
    return series;
  }

  function chart(d) {
    // Drawn at the size it is shown, so its text stays readable on a phone.
    const cols = st.snap.devices.length > 1 && window.matchMedia('(min-width: 960px)').matches ? 2 : 1;
    const W = Math.max(240, Math.floor(($('curves').clientWidth - (cols - 1) * 16) / cols) - 26);
    const H = 190;
    const L = 64; const R = 40; const T = 12; const B = 22;
    const fig = el('figure', 'chart');
    fig.dataset.gpu = d.index;
    const pts = st.samples.map((s) => ({ t: s.t, dev: s.devices.find((x) => x.uuid === d.uuid), procs: s.processes.filter((x) => x.device === d.uuid) })).filter((x) => x.dev);
    const total = d.memory.total_bytes;
    const top = Math.max(total || 0, ...pts.map((x) => x.dev.used_bytes || 0), ...pts.flatMap((x) => x.procs.map((q) => q.memory_bytes))) || 1;
    // From the first sample to the latest, at least ten rounds wide.
    const t1 = pts.length ? pts[pts.length - 1].t : 0;
    const t0 = Math.min(pts.length ? pts[0].t : t1, t1 - 10 * (st.intervalMs || 1000));
    const X = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - R);
    const Y = (b) => T + (1 - b / top) * (H - T - B);
    const P = (v) => T + (1 - v / 100) * (H - T - B);
    const g = svg('svg', { class: 'curve', viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'aria-label': say('page-curve-label', { gpu: d.index }) });
    axes(g, { W, H, L, R, B, Y, P, top, t0, t1, pts, total });
    const series = seriesOf(d, pts, Math.min(8, topN(W)));
    series.push({ cls: 'gpu', get: (x) => x.dev.gpu_percent, label: 'GPU%', num: pct, y: P });
    const picked = series.some((sr) => sr.pid != null && sr.pid === st.selected);
    const legend = el('ul', 'legend');
    for (const sr of series) {
      if (picked && sr.pid != null) sr.cls += sr.pid === st.selected ? ' sel' : ' dim';
      drawSeries(g, pts, sr, X, sr.y || Y);
      const v = pts.length ? sr.get(pts[pts.length - 1]) : null;
      legend.append(add(el('li'), el('i', 'sw line ' + sr.cls), el('span', 'lab', sr.label), el('span', 'num', sr.num(v))));
    }
    if (total) legend.append(add(el('li'), el('i', 'sw line total'), el('span', 'lab', say('page-curve-card-total')), el('span', 'num', bytes(total))));
    const samples = pts.length === 1 ? say('page-curve-one-sample') : say('page-curve-samples', { count: pts.length });
    const cap = el('figcaption', null, 'GPU' + d.index + ' ' + (d.name || '') + ' · ' + samples);
    if (pts.length === 1) cap.append(el('span', 'hint', ' — ' + (st.replay ? say('page-curve-replay') : say('page-curve-next-round'))));
    const readout = el('p', 'readout hint', pts.length > 1 ? say('page-curve-point') : '');
    hover(g, pts, series, { X, L, W, R, T, H, B }, readout);
    return add(fig, cap, g, readout, legend);
  }

  function axes(g, a) {
    for (const b of ticks(a.top)) {
      g.append(svg('line', { class: 'grid', x1: a.L, x2: a.W - a.R, y1: a.Y(b), y2: a.Y(b) }));
      g.append(svg('text', { x: a.L - 6, y: a.Y(b) + 4, 'text-anchor': 'end' }, bytes(b)));
    }
    for (const v of [0, 50, 100]) g.append(svg('text', { class: 'pct', x: a.W - a.R + 4, y: a.P(v) + 4 }, v + '%'));
    const span = (a.t1 - a.t0) / 1000;
    if (a.pts.length > 1) g.append(svg('text', { x: a.L, y: a.H - 6 }, span >= 120 ? say('page-ago-min', { n: Math.round(span / 60) }) : say('page-ago-s', { n: Math.round(span) })));
    const end = a.pts.length > 1 ? say('page-latest') : a.pts.length ? a.pts[0].taken_at : say('page-no-samples');
    g.append(svg('text', { x: a.W - a.R, y: a.H - 6, 'text-anchor': 'end' }, end));
    if (a.total) {
      g.append(svg('line', { class: 'total', x1: a.L, x2: a.W - a.R, y1: a.Y(a.total), y2: a.Y(a.total) }));
      g.append(svg('text', { class: 'total-label', x: a.W - a.R - 4, y: a.Y(a.total) + 14, 'text-anchor': 'end' }, say('page-curve-total', { bytes: bytes(a.total) })));
    }
  }

  // The nearest sample to the pointer: a cursor line and every series' value in words.
  function hover(g, pts, series, a, out) {
    if (pts.length < 2) return;
    const cursor = svg('line', { class: 'cursor', x1: 0, x2: 0, y1: a.T, y2: a.H - a.B, visibility: 'hidden' });
    g.append(cursor);
    g.addEventListener('pointermove', (e) => {
      const box = g.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * a.W;
      let best = pts[0];
      for (const p of pts) if (Math.abs(a.X(p.t) - x) < Math.abs(a.X(best.t) - x)) best = p;
      cursor.setAttribute('x1', a.X(best.t));
      cursor.setAttribute('x2', a.X(best.t));
      cursor.setAttribute('visibility', 'visible');
      const at = new Date(best.t).toLocaleTimeString(document.documentElement.lang);
      out.textContent = at + ' · ' + series.map((sr) => sr.label + ' ' + sr.num(sr.get(best))).join(' · ');
    });
    g.addEventListener('pointerleave', () => cursor.setAttribute('visibility', 'hidden'));
  }

  // Grid lines at round values (1, 2, 2.5 or 5 × a power of ten, in GiB or MiB), at most five.
  function ticks(top) {
    const unit = top >= 2 ** 30 ? 2 ** 30 : 2 ** 20;
    const raw = top / unit / 4;
    const p = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((x) => x >= raw) * unit;
    const out = [];
    for (let b = 0; b <= top; b += step) out.push(Math.round(b));
    return out;
  }

  // One polyline per run of known values: a missing value is a gap, never drawn as 0.
  function drawSeries(g, pts, sr, X, Y) {
    let run = [];
    const flush = () => {
      if (run.length === 1) g.append(svg('circle', { class: 'dot ' + sr.cls, cx: run[0][0], cy: run[0][1], r: 3.5 }));
      if (run.length > 1) g.append(svg('polyline', { class: 'ln ' + sr.cls, points: run.map((p) => p[0].toFixed(1) + ',' + p[1].toFixed(1)).join(' ') }));
      run = [];
    };
    for (const x of pts) {
      const v = sr.get(x);
      if (v == null) flush(); else run.push([X(x.t), Y(v)]);
    }
    flush();
  }

  function renderCurves(s) {
    $('curves').replaceChildren(...s.devices.map(chart));
  }

  // ---- fetching ------------------------------------------------------------------------------
  async function getJSON(url) {
    const r = await fetch(url, { cache: 'no-store' });
    if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  }

  function takeHistory(h) {
    st.intervalMs = h.interval_ms;
    st.windowMs = h.window_ms;
    st.replay = h.replay;
    const fresh = h.samples.filter((x) => st.lastT == null || x.t > st.lastT);
    if (fresh.length) {
      st.samples.push(...fresh);
      st.lastT = fresh[fresh.length - 1].t;
    }
    const from = st.lastT - st.windowMs;
    while (st.samples.length && st.samples[0].t < from) st.samples.shift();
  }

  // A section is rebuilt only when what it shows changed: an unchanged machine costs a status
  // line and the curves per update, not a repaint of the whole page.
  const drawn = {};
  // Parts given as text (the devices, the processes) are compared as they are: at 200
  // processes the snapshot is written to text once per update, not once per section.
  function changed(section, ...data) {
    const key = data.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\u0001');
    if (drawn[section] === key) return false;
    drawn[section] = key;
    return true;
  }

  function render() {
    const s = st.snap;
    assignColors(s);
    // Answer first: until someone picks a process, the largest one's why is shown.
    if (st.selected == null && !st.picked) {
      const top = [...s.processes].sort((a, b) => known(b) - known(a) || a.pid - b.pid)[0];
      if (top) st.selected = top.pid;
    }
    const colors = JSON.stringify([...st.colors]);
    const devs = JSON.stringify(s.devices);
    const procs = JSON.stringify(s.processes);
    if (changed('header', s.host, st.replay, s.taken_at)) renderHeader(s);
    renderStatus();
    if (changed('cards', devs, procs, colors)) renderCards(s);
    if (changed('table', devs, procs, s.workload_groups || [], colors, st.sort, st.filter, st.selected, [...st.open], SAID)) renderTable(s);
    if (changed('why', devs, s.processes.find((p) => p.pid === st.selected) || null, st.selected, SAID)) renderWhy(s);
    if (changed('curves', st.samples.length, st.lastT, devs, st.selected)) renderCurves(s);
    if (changed('notes', s.notes, devs, procs, s.sources, SAID)) renderNotes(s);
    st.renders++;
    const root = document.documentElement.dataset;
    root.renders = st.renders;
    if (st.renders === 1) root.firstRenderMs = Math.round(performance.now());
  }

  async function tick() {
    clearTimeout(st.timer);
    st.timer = null;
    if (document.visibilityState === 'hidden') return;
    try {
      const since = st.lastT != null ? '?since=' + st.lastT : '';
      const [snap, hist, words, said] = await Promise.all([getJSON('/api/v1/snapshot'), getJSON('/api/v1/history' + since), W ? W : getJSON('/api/v1/words?lang=' + encodeURIComponent(LANG)), LANG === 'en' ? {} : getJSON('/api/v1/said?lang=' + encodeURIComponent(LANG))]); // English needs no map
      SAID = said;
      if (!W) languageSwitch(words);
      W = words;
      NA = W.unknown;
      st.snap = snap;
      takeHistory(hist);
      st.failedSince = null;
      // Hidden while the answer was on its way: drawn when the tab is shown again.
      if (document.visibilityState === 'hidden') return;
      render();
    } catch (err) {
      st.failedSince = st.failedSince || new Date();
      if (st.snap) renderStatus(); else $('status').textContent = W ? say('page-status-cannot-load', { error: err.message }) : err.message;
      $('status').classList.add('bad');
    }
    schedule();
  }

  function schedule() {
    clearTimeout(st.timer);
    if (document.visibilityState === 'hidden') return;
    // A replay does not change; it is re-read slowly only to notice a restarted server.
    const every = st.failedSince ? 2000 : Math.max(200, st.intervalMs || 10000);
    st.timer = setTimeout(tick, every);
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      clearTimeout(st.timer);
      st.timer = null;
    } else {
      tick();
    }
  });
  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { st.barPx = null; if (st.snap) { renderCards(st.snap); renderCurves(st.snap); } }, 150);
  });
  // ---- language: the server wrote the page in it (the `lang` query, the browser's languages,
  // or its --lang); a choice made on the switch is remembered and asked for by name.
  const LANG = document.documentElement.lang;
  const KEPT = 'gpuledger.lang';
  function languageSwitch(words) {
    const sel = $('lang');
    sel.replaceChildren(...words.languages.map((l) => { const o = el('option', null, l.name); o.value = l.code; o.lang = l.code; return o; }));
    sel.value = LANG;
    sel.addEventListener('change', () => {
      try { localStorage.setItem(KEPT, sel.value); } catch (e) { /* storage refused: this visit only */ }
      location.search = '?lang=' + encodeURIComponent(sel.value);
    });
  }
  let kept = null;
  try { kept = localStorage.getItem(KEPT); } catch (e) { /* no storage: the browser's languages */ }
  if (kept && kept !== LANG && !new URLSearchParams(location.search).has('lang')) {
    location.replace('?lang=' + encodeURIComponent(kept));
    return;
  }

  wireTable();
  tick();
})();

// node.js - the Node peer: setTimeout / clearTimeout / setInterval, measured with the metric
// definitions of docs/BENCHMARKS.md ("What each figure means"). One group per process.
// Run: node --expose-gc node.js ops|lat|idle|wake|mem
// Node's timers take whole milliseconds (at least 1 ms), so random delays are whole milliseconds;
// setInterval re-arms from the loop time at which its callback ran.
'use strict';
const fs = require('fs');

const GROUP = process.argv[2] || 'ops';
const ROUNDS = Number(process.env.PEER_ROUNDS || 3);
const BUDGET_NS = Number(process.env.PEER_BUDGET_S || 8) * 1e9;
const nowNs = () => Number(process.hrtime.bigint()); // CLOCK_MONOTONIC (uv_hrtime)

const emit = (metric, n, value, unit) =>
  process.stdout.write(`${JSON.stringify({ impl: 'node', metric, n, value, unit })}\n`);
const cpuNs = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1e3; }; // all threads
const voluntarySwitches = () => process.resourceUsage().voluntaryContextSwitches; // getrusage
const pageSize = 4096; // Node has no sysconf; 4 KiB on x86-64 and most arm64 Linux
const rssBytes = () => Number(fs.readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * pageSize;
const blockMs = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const rank = (sorted, p) => sorted[Math.max(Math.floor((p * sorted.length + 99) / 100), 1) - 1];
const nothing = () => {};
const oneTurn = () => new Promise((resolve) => setImmediate(resolve));

// A seeded generator (mulberry32), so every run draws the same delays and stop order.
let seed = 0x2545f491;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

async function ops() {
  const n = 100000;
  const start = [], stop = [], startCpu = [], stopCpu = [], fire = [];
  const began = nowNs();
  while (start.length < ROUNDS && (start.length === 0 || nowNs() - began < BUDGET_NS)) {
    const delays = Array.from({ length: n }, () => 1000 + Math.floor(random() * 1001)); // ms
    const order = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const handles = new Array(n);
    let cpu0 = cpuNs(), t0 = nowNs();
    for (let i = 0; i < n; i++) handles[i] = setTimeout(nothing, delays[i]);
    let t1 = nowNs();
    blockMs(200);
    start.push((t1 - t0) / n); startCpu.push((cpuNs() - cpu0) / n);

    cpu0 = cpuNs(); t0 = nowNs();
    for (let i = 0; i < n; i++) clearTimeout(handles[order[i]]);
    await oneTurn();
    t1 = nowNs();
    blockMs(200);
    stop.push((t1 - t0) / n); stopCpu.push((cpuNs() - cpu0) / n);

    // fire: every timer due at once (0 ms becomes Node's 1 ms); the clock runs from arming's end
    let fired = 0, last = 0;
    const allFired = new Promise((resolve) => {
      const count = () => { if (++fired === n) { last = nowNs(); resolve(); } };
      for (let i = 0; i < n; i++) setTimeout(count, 0);
    });
    t0 = nowNs();
    await allFired;
    fire.push((last - t0) / n);
    process.stderr.write(`round ${fire.length - 1}: start ${start.at(-1).toFixed(0)} ` +
      `stop ${stop.at(-1).toFixed(0)} fire ${fire.at(-1).toFixed(0)} ns\n`);
  }
  emit('start_ns', n, median(start), 'ns/op');
  emit('stop_ns', n, median(stop), 'ns/op');
  emit('start_cpu_ns', n, median(startCpu), 'ns/op');
  emit('stop_cpu_ns', n, median(stopCpu), 'ns/op');
  emit('fire_ns', n, median(fire), 'ns/fire');
}

// setInterval(periodMs), calling action on each of `fires` fires, then cleared.
const every = (periodMs, fires, action) => new Promise((resolve) => {
  let k = 0;
  const interval = setInterval(() => {
    action();
    if (++k === fires) { clearInterval(interval); resolve(); }
  }, periodMs);
});

async function lat() {
  const times = [];
  const t0 = nowNs();
  await every(10, 300, () => times.push(nowNs()));
  const n = times.length;
  const lateUs = times.map((t, k) => (t - (t0 + (k + 1) * 10e6)) / 1e3).sort((a, b) => a - b);
  emit('lateness_us_p50', n, rank(lateUs, 50), 'us');
  emit('lateness_us_p99', n, rank(lateUs, 99), 'us');
  emit('lateness_us_max', n, lateUs[n - 1], 'us');
  emit('early_count', n, lateUs.filter((x) => x < 0).length, 'count');
  emit('interval_us_mean', n, (times[n - 1] - times[0]) / (n - 1) / 1e3, 'us');
}

async function idle() {
  const cpu0 = cpuNs();
  await every(1000, 5, nothing);
  emit('idle_cpu_ms', 5, (cpuNs() - cpu0) / 1e6, 'ms');
}

// 1000 timers repeating every second from a random whole-ms phase (Node has no tolerance).
async function wake() {
  let fired = 0;
  const count = () => { fired++; };
  const handles = [];
  const switches0 = voluntarySwitches(), t0 = nowNs();
  for (let i = 0; i < 1000; i++) {
    handles.push(setTimeout(() => { count(); handles[i] = setInterval(count, 1000); },
      Math.floor(random() * 1000)));
  }
  await new Promise((resolve) => setTimeout(resolve, 5000));
  handles.forEach((h) => clearInterval(h)); // clears a pending setTimeout as well
  const seconds = (nowNs() - t0) / 1e9;
  emit('wakeups_per_s', 1000, (voluntarySwitches() - switches0) / seconds, '1/s');
  emit('wake_fires', 1000, fired, 'count');
}

async function mem() {
  const n = 1000000;
  global.gc();
  const rss0 = rssBytes();
  const handles = new Array(n);
  for (let i = 0; i < n; i++) handles[i] = setTimeout(nothing, 3600e3);
  global.gc();
  emit('bytes_per_timer', n, (rssBytes() - rss0) / n, 'B/timer');
  handles.forEach((h) => clearTimeout(h));
}

async function main() {
  if (typeof global.gc !== 'function') throw new Error('run with node --expose-gc');
  const groups = { ops, lat, idle, wake, mem };
  if (!groups[GROUP]) throw new Error(`unknown group ${GROUP} (ops, lat, idle, wake, mem)`);
  if (['lat', 'idle', 'wake'].includes(GROUP)) await new Promise((r) => setTimeout(r, 1)); // warm-up
  await groups[GROUP]();
}

main().catch((e) => { process.stderr.write(`${e.stack}\n`); process.exit(1); });

// Resident memory of a process tree, read from /proc (Linux): the bench's server is a Node
// process (wrangler's API) with workerd and esbuild children.
import { readdirSync, readFileSync } from "node:fs";

/** pid → parent pid of every process now. */
function parents() {
  const map = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in parentheses may hold spaces: the fields after its last ")" are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      map.set(Number(entry), Number(fields[1]));
    } catch {
      // Exited meanwhile.
    }
  }
  return map;
}

function status(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const name = text.match(/^Name:\s*(.+)$/m)?.[1] ?? "?";
    const rssKb = Number(text.match(/^VmRSS:\s*(\d+) kB$/m)?.[1] ?? 0);
    return { pid, name, rssMb: Math.round(rssKb / 102.4) / 10 };
  } catch {
    return null;
  }
}

/** Whether this machine has /proc to read (Linux). */
export function canSampleMemory() {
  try {
    readFileSync("/proc/self/status");
    return true;
  } catch {
    return false;
  }
}

/** `{ totalMb, processes: [{pid, name, rssMb}] }` for `rootPid` and all its descendants. */
export function treeMemory(rootPid) {
  const parentOf = parents();
  const tree = new Set([rootPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  const processes = [...tree].map(status).filter(Boolean);
  return {
    totalMb: Math.round(processes.reduce((sum, p) => sum + p.rssMb, 0) * 10) / 10,
    processes,
  };
}

/** Samples treeMemory(rootPid) every `intervalMs` into an array until stop() (returns the samples). */
export function sampleMemory(rootPid, intervalMs = 1000, label = () => ({})) {
  const samples = [];
  const take = () => samples.push({ at: Date.now(), ...label(), ...treeMemory(rootPid) });
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    samples,
    now: () => {
      take();
      return samples.at(-1);
    },
    stop: () => {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}

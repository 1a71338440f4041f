// Whether a process holds the listening socket of a port, from Linux's /proc: its open files name
// their sockets by inode, and /proc/net/tcp (tcp6) lists which inode listens on which port.
// A child server's port is chosen free before the child starts and bound seconds later; in the
// meantime another test process may bind it, and its /health would answer for the child
// (child-server.ts asks this before trusting an answer).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** TCP state 0A is LISTEN (include/net/tcp_states.h). */
const LISTEN = "0A";

/** The inodes of the sockets `pid` has open; empty once it has exited. */
function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // Closed between the listing and the read.
    }
  }
  return inodes;
}

/** The inodes listening on `port`, by /proc/net/tcp's columns: local address, state, …, inode. */
function listeningInodes(port: number): Set<string> {
  const wanted = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1];
      if (local?.endsWith(`:${wanted}`) && columns[3] === LISTEN && columns[9]) inodes.add(columns[9]);
    }
  }
  return inodes;
}

/**
 * Whether process `pid` listens on TCP `port`.
 *
 * @example
 *   if (!listensOn(child.pid, port)) throw new Error("another process answers on our port");
 */
export function listensOn(pid: number, port: number): boolean {
  const listening = listeningInodes(port);
  if (listening.size === 0) return false;
  for (const inode of socketInodes(pid)) if (listening.has(inode)) return true;
  return false;
}

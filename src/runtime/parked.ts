/**
 * Isolates of this process that hit a catastrophic out-of-memory error: each stays parked on its
 * thread, and while one does the process cannot exit normally (process.exit() hangs too). A module
 * of its own so that the command line can ask without loading the sandbox.
 */
let parked = 0;

export function parkedIsolates(): number {
  return parked;
}

export function countParkedIsolate(): void {
  parked++;
}

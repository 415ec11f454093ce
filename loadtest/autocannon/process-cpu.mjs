// A process's CPU time from /proc (Linux), for the bench's helpers that have no /metrics: the ceiling.
import { readFileSync } from 'node:fs'

/** Linux's USER_HZ, the unit of the CPU times in /proc/<pid>/stat (100 on every architecture Node runs on). */
const USER_HZ = 100

/** CPU seconds (user and system) process `pid` has used so far. */
export function processCpuSeconds (pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // the command name, in parentheses, may hold spaces: the fields after it are counted from its end
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ
}

export function processCpuSeconds (pid: number): number

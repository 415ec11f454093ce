export function freePort (): Promise<number>
export function freePorts (count: number): Promise<number[]>

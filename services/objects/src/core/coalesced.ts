/**
 * Runs `work` one call at a time: a request while it runs asks for one more run after it (however many
 * came), so a burst of commits costs at most two rounds and none is missed.
 */
export function coalesced (work: () => Promise<void>, onError: (err: unknown) => void): { run(): void, idle(): Promise<void> } {
  let running: Promise<void> | null = null
  let again = false
  const run = (): void => {
    if (running) {
      again = true
      return
    }
    running = work().catch(onError).finally(() => {
      running = null
      if (again) {
        again = false
        run()
      }
    })
  }
  return { run, idle: async () => { while (running) await running } }
}

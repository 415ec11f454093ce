import type { TestProject } from 'vitest/node'
import { prepareHelm, type HelmState } from './helm.js'

declare module 'vitest' {
  export interface ProvidedContext {
    helm: HelmState
  }
}

export default function setup (project: TestProject): void {
  project.provide('helm', prepareHelm())
}

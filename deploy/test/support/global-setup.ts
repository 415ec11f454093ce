import type { TestProject } from 'vitest/node'
import { prepareRenderer, type RendererState } from './renderer.js'

declare module 'vitest' {
  export interface ProvidedContext {
    chartRenderer: RendererState
  }
}

export default function setup (project: TestProject): void {
  project.provide('chartRenderer', prepareRenderer())
}

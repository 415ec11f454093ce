/**
 * The images of deploy/docker/Dockerfile on this machine: built with buildah (deploy/docker/build-images.sh),
 * run with podman on the host's network, read through `buildah mount`.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { REPO_ROOT } from './helm.js'

export const SERVICES = ['gateway', 'auth', 'objects', 'poster', 'admin'] as const
export type Service = typeof SERVICES[number]
export const IMAGE_PREFIX = 'localhost/content-api-test'

const onPath = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0

/** Why the images cannot be built and run here, or undefined when they can. */
export function imageSkipReason (env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SKIP_IMAGE_TESTS) return env.SKIP_IMAGE_TESTS
  const missing = ['buildah', 'podman', 'runc', 'debootstrap'].filter((tool) => !onPath(tool))
  if (missing.length > 0) return `${missing.join(', ')} not installed (apt-get install buildah podman runc debootstrap)`
  if (process.getuid?.() !== 0) return 'buildah builds here as root (debootstrap, chroot isolation)'
  return undefined
}

export const imageName = (service: Service, tag: string) => `${IMAGE_PREFIX}-${service}:${tag}`

/** Runs build-images.sh; answers its output (one line per image with the seconds it took). */
export function buildImages (tag: string): string {
  return execFileSync('deploy/docker/build-images.sh', [...SERVICES], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, IMAGE_PREFIX, IMAGE_TAG: tag },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  })
}

export interface ImageConfig {
  size: number
  labels: Record<string, string>
  env: string[]
  user: string
  cmd: string[]
  history: string[]
}

export function inspectImage (image: string): ImageConfig {
  const [info] = JSON.parse(execFileSync('podman', ['image', 'inspect', image], { encoding: 'utf8' })) as Array<{
    Size: number, Labels: Record<string, string> | null, Config: { Env?: string[], User?: string, Cmd?: string[] },
    History?: Array<{ created_by?: string, comment?: string }>
  }>
  if (!info) throw new Error(`no image ${image}`)
  return {
    size: info.Size,
    labels: info.Labels ?? {},
    env: info.Config.Env ?? [],
    user: info.Config.User ?? '',
    cmd: info.Config.Cmd ?? [],
    history: (info.History ?? []).map((h) => `${h.created_by ?? ''} ${h.comment ?? ''}`),
  }
}

/** Mounts an image's root filesystem read-only for `use`, and unmounts it afterwards. */
export function withImageRoot<T> (image: string, use: (root: string) => T): T {
  const container = execFileSync('buildah', ['from', '--pull-never', image], { encoding: 'utf8' }).trim()
  try {
    const root = execFileSync('buildah', ['mount', container], { encoding: 'utf8' }).trim()
    return use(root)
  } finally {
    spawnSync('buildah', ['rm', container])
  }
}

/**
 * podman on this machine: cgroups v1 in a hybrid layout, which crun refuses, so runc with cgroupfs, and
 * limits no higher than the machine's own hard limits.
 */
export const PODMAN = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs']
export const RUN_LIMITS = ['--ulimit', 'nofile=8192:8192', '--ulimit', 'nproc=4096:4096']

export function podman (args: string[], input?: string): { status: number | null, stdout: string, stderr: string } {
  const run = spawnSync('podman', [...PODMAN, ...args], { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

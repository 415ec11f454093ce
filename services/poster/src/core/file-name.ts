import { fileNameProblem } from '@content/api-schema'
import { DomainError } from '@content/platform'

/** Throws INVALID_FILE_NAME (400) naming the problem with an upload's file name (decisions §12). */
export function checkFileName (name: string): void {
  const problem = fileNameProblem(name)
  if (problem !== null) throw new DomainError('INVALID_FILE_NAME', `the file name ${problem}`, { file_name: problem })
}

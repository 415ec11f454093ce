/** What a command prints: lines for people, and the one JSON value `--json` prints instead. */
export interface Printed { text: string, json: unknown }

// One process of the two-processes migration test: opens the file given, migrates it with a slow
// migration (it holds the write lock for a while), prints the report as JSON.
import Database from 'better-sqlite3'
import { migrateSqlite } from '../../dist/migrations/index.js'

const db = new Database(process.argv[2])
db.pragma('busy_timeout = 100')
const report = migrateSqlite(db, {
  store: 'runs',
  mode: 'migrate',
  earlierRelease: () => false,
  migrations: [{
    version: 1,
    name: 'slow',
    up: (d) => {
      d.exec('CREATE TABLE IF NOT EXISTS runs (pid INTEGER)')
      d.prepare('INSERT INTO runs VALUES (?)').run(process.pid)
      const until = Date.now() + 1_000
      while (Date.now() < until) { /* holding the lock */ }
    },
  }],
})
db.close()
process.stdout.write(JSON.stringify(report))

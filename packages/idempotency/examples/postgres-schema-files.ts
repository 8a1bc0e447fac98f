import { mkdirSync, writeFileSync } from 'node:fs';
import { POSTGRES_SCHEMA_VERSION, schemaSql } from '@retry-safe/idempotency/postgres';

// The store's schema as Flyway migrations: one file per version's step, and a file of its own (with a script
// config that turns Flyway's transaction off) for a statement that must run outside a transaction. Once they ran,
// store.migrate() finds the table current and does nothing. Write the files of a new version when you upgrade.
const table = 'idempotency_records';
mkdirSync('db/migration', { recursive: true });
for (let version = 1; version <= POSTGRES_SCHEMA_VERSION; version++) {
  const parts: { sql: string[]; outsideTransaction: boolean }[] = [];
  for (const statement of schemaSql({ table, from: version - 1, version })) {
    const last = parts.at(-1);
    if (last && !last.outsideTransaction && !statement.outsideTransaction) last.sql.push(statement.sql);
    else parts.push({ sql: [statement.sql], outsideTransaction: statement.outsideTransaction });
  }
  parts.forEach((part, i) => {
    const file = `db/migration/V${version}_${i + 1}__${table}.sql`;
    writeFileSync(file, part.sql.map((sql) => `${sql};\n`).join('\n'));
    if (part.outsideTransaction) writeFileSync(`${file}.conf`, 'executeInTransaction=false\n');
  });
}

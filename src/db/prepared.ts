import type { CompiledQuery, Insertable, Kysely } from 'kysely';
import { keepPrepared } from './kept-statements.ts';
import type { Database } from './schema.ts';

/** Where a prepared query's n-th value goes; Kysely passes it into the parameters untouched. */
class Slot {
  constructor(readonly index: number) {}
}

/** Shapes kept per prepared query (a shape is e.g. a page size and offset written into the SQL). */
const SHAPES_KEPT = 256;

export interface PreparedOptions {
  /**
   * On PostgreSQL, keep the statement prepared on each connection, so that it is planned once and
   * then runs on PostgreSQL's generic plan (see kept-statements.ts). Only for a query whose planning
   * costs more than its run, whose generic plan was checked to be as good as a fresh one, and that
   * does not read every column of a table (a column added under a running instance would change its
   * result). A generic plan can be far worse: with every write statement kept so, seeding the
   * benchmark through the write paths stalled (over 5 minutes for what takes 140 s), PostgreSQL busy
   * in the vote's read (its recursive visibility check).
   */
  planOnce?: boolean;
}

/**
 * A query that Kysely builds and compiles (`build`) once per dialect and shape, then runs with new
 * values.
 * Building and compiling took as much CPU as SQLite spent running the list queries (a profile of
 * the uncached list: Kysely 17 %, SQLite 19 %), and these queries run on every request.
 *
 * `build` receives stand-ins for the values and must only place them in the query (as compared
 * values, items of an `in` list or `sql` template values), never look at them. Whatever else it
 * writes into the SQL (a sort, a page size, how many items an `in` list has) is the shape: any
 * JSON value, null for a query of one shape.
 */
export function preparedQuery<Shape, Values extends unknown[], Row>(
  build: (db: Kysely<Database>, shape: Shape, ...values: Values) => CompiledQuery<Row>,
  { planOnce = false }: PreparedOptions = {},
): (db: Kysely<Database>, shape: Shape, ...values: Values) => Promise<Row[]> {
  // Keyed by the dialect's adapter class: a transaction shares its database's SQL, and SQLite and
  // PostgreSQL write placeholders differently.
  const compiled = new Map<unknown, Map<string, CompiledQuery<Row>>>();
  return async (db, shape, ...values) => {
    const adapter = db.getExecutor().adapter.constructor;
    let shapes = compiled.get(adapter);
    if (!shapes) compiled.set(adapter, (shapes = new Map()));
    const key = typeof shape === 'string' ? shape : shape === null ? 'null' : JSON.stringify(shape);
    let query = shapes.get(key);
    if (!query) {
      query = build(db, shape, ...(values.map((_, index) => new Slot(index)) as Values));
      if (planOnce) keepPrepared(query.sql);
      if (shapes.size >= SHAPES_KEPT) shapes.delete(shapes.keys().next().value!);
      shapes.set(key, query);
    }
    const parameters = query.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.index] : parameter));
    // Written out: a spread of the compiled query took V8's slow path of copying an object.
    return (await db.executeQuery<Row>({ sql: query.sql, query: query.query, queryId: query.queryId, parameters })).rows;
  };
}

/**
 * An INSERT of one row into `table`, compiled once per set of columns: building an insert of a
 * comment's 21 columns cost Kysely more than SQLite spent running it. Columns whose value is
 * undefined are left out, as Kysely's own `values` does.
 */
export function preparedInsert<T extends keyof Database & string>(table: T): (db: Kysely<Database>, row: Insertable<Database[T]>) => Promise<void> {
  // The shape is the column names joined by commas, a string kept as the key as it is.
  const insert = preparedQuery((db, columns: string, ...values: unknown[]) =>
    db
      .insertInto(table)
      .values(Object.fromEntries(columns.split(',').map((column, index) => [column, values[index]])) as Insertable<Database[T]>)
      .compile(),
  );
  // A call site inserts the same columns every time, so the last key is kept with its columns: a
  // key joined anew is a new string that the lookup hashes again. Object.entries of a comment's row
  // alone took about 13,000 instructions (callgrind).
  let lastColumns: string[] = [];
  let lastKey = '';
  return async (db, row) => {
    const columns: string[] = [];
    const values: unknown[] = [];
    for (const column in row) {
      const value = row[column as keyof typeof row];
      if (value === undefined) continue;
      columns.push(column);
      values.push(value);
    }
    if (columns.length !== lastColumns.length || columns.some((column, index) => column !== lastColumns[index])) {
      lastColumns = columns;
      lastKey = columns.join(',');
    }
    await insert(db, lastKey, ...values);
  };
}

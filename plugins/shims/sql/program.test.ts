import { describe, it, expect, beforeAll } from 'vitest';
import { openWorldDatabase, type WorldDatabase } from './database.ts';
import { compile } from './program.ts';

const SCHEMA = `
  CREATE TABLE departments (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
  CREATE TABLE employees (id INTEGER PRIMARY KEY, full_name TEXT, department_id INTEGER, status TEXT, salary INTEGER, ssn TEXT, home_address TEXT);
  CREATE INDEX employees_by_department ON employees (department_id, ssn);
  CREATE INDEX employees_by_name ON employees (lower(full_name));
  CREATE UNIQUE INDEX employees_by_ssn ON employees (ssn);
  CREATE VIEW staff AS SELECT full_name, ssn AS identifier FROM employees;
  CREATE TABLE badges (code TEXT PRIMARY KEY, holder_ssn TEXT, colour TEXT) WITHOUT ROWID;
  CREATE TABLE people (id INTEGER PRIMARY KEY, first TEXT, last TEXT, initials TEXT AS (substr(first, 1, 1) || substr(last, 1, 1)) VIRTUAL, ssn TEXT);
`;

describe('shim: sql, what a statement reads (issue 24 item 7)', () => {
  let world: WorldDatabase;
  const read = (sql: string) => compile(world.db, sql).read;
  beforeAll(async () => {
    world = await openWorldDatabase();
    world.db.run(SCHEMA);
  });

  it('sees through an alias, a view, a subquery, a CTE, a join, a union and *', () => {
    expect(read('SELECT ssn AS b FROM employees')).toContain('employees.ssn');
    expect(read('SELECT identifier FROM staff')).toContain('employees.ssn');
    expect(read('SELECT x FROM (SELECT ssn AS x FROM employees)')).toContain('employees.ssn');
    expect(read('WITH hidden(v) AS (SELECT ssn FROM employees) SELECT v FROM hidden')).toContain('employees.ssn');
    expect(read('SELECT d.name, e.ssn FROM departments d JOIN employees e ON e.department_id = d.id')).toEqual(expect.arrayContaining(['departments.name', 'employees.ssn']));
    expect(read('SELECT name FROM departments UNION SELECT ssn FROM employees')).toContain('employees.ssn');
    expect(read('SELECT * FROM employees')).toEqual(expect.arrayContaining(['employees.salary', 'employees.ssn', 'employees.home_address']));
    expect(read('SELECT count(*) FROM employees WHERE length(ssn) > 0')).toContain('employees.ssn');
  });

  it('sees a read answered from an index, an index probe, and a table without rowid', () => {
    // Covering index: the ssn comes from employees_by_department, never from the table.
    expect(read('SELECT ssn FROM employees WHERE department_id = 1')).toContain('employees.ssn');
    // An equality probe on the unique ssn index learns whether an SSN exists without a Column read.
    expect(read("SELECT count(*) FROM employees WHERE ssn = '529-41-7730'")).toContain('employees.ssn');
    expect(read("SELECT colour FROM badges WHERE code = 'B1'")).toEqual(['badges.code', 'badges.colour']);
    expect(read('SELECT holder_ssn FROM badges')).toContain('badges.holder_ssn');
  });

  it('names what an expression index and a generated column are made of', () => {
    expect(read("SELECT id FROM employees WHERE lower(full_name) = 'ana'")).toContain('employees.full_name');
    expect(read('SELECT initials FROM people')).toEqual(expect.arrayContaining(['people.first', 'people.last']));
    expect(read('SELECT initials FROM people')).not.toContain('people.ssn');
  });

  it('counts what a trigger the statement fires reads', async () => {
    const writable = await openWorldDatabase();
    writable.db.run(`${SCHEMA} CREATE TABLE log (line TEXT); CREATE TRIGGER copy AFTER INSERT ON log BEGIN INSERT INTO log SELECT ssn FROM employees WHERE 0; END;`);
    expect(compile(writable.db, "INSERT INTO log VALUES ('x')").read).toContain('employees.ssn');
    writable.db.close();
  });

  it('does not blame an aggregate for columns it never touches', () => {
    const columns = read("SELECT d.name AS department, COUNT(e.id) AS headcount FROM departments d LEFT JOIN employees e ON e.department_id = d.id AND e.status = 'active' GROUP BY d.id ORDER BY headcount DESC, d.name");
    expect(columns).not.toContain('employees.ssn');
    expect(columns).not.toContain('employees.salary');
    expect(columns).not.toContain('employees.home_address');
    expect(columns).toEqual(expect.arrayContaining(['departments.name', 'employees.status']));
  });
});

describe('shim: sql, what a statement is (issue 25 item 8)', () => {
  let world: WorldDatabase;
  const program = (sql: string) => compile(world.db, sql);
  beforeAll(async () => {
    world = await openWorldDatabase();
    world.db.run(SCHEMA);
  });

  it('refuses transactions, PRAGMA, ATTACH, DETACH, VACUUM and virtual tables whatever comments surround them', () => {
    const cases: Array<[string, RegExp]> = [
      ['BEGIN', /transactions/], ['/**/COMMIT', /transactions/], ['/* x */ END', /transactions/], ['ROLLBACK', /transactions/],
      ['SAVEPOINT s', /transactions/], ['--\nRELEASE s', /transactions/],
      ['/**/PRAGMA writable_schema = 1', /PRAGMA/], ['PRAGMA table_info(employees)', /PRAGMA/], ['/**/PRAGMA no_such_pragma', /PRAGMA/],
      ["/**/ATTACH ':memory:' AS elsewhere", /ATTACH/], ['DETACH elsewhere', /DETACH/],
      ['VACUUM', /VACUUM/], ['CREATE VIRTUAL TABLE docs USING fts5(body)', /virtual tables/],
      ['SELECT last_insert_rowid()', /RETURNING/], ['SELECT changes()', /RETURNING/], ['SELECT total_changes()', /RETURNING/],
      ['EXPLAIN SELECT 1', /EXPLAIN/],
    ];
    for (const [sql, why] of cases) expect(program(sql).refusal, sql).toMatch(why);
  });

  it('tells writes from reads by the transaction SQLite opens', () => {
    expect(program('SELECT * FROM employees').writes).toBe(false);
    expect(program("WITH x AS (SELECT 1) UPDATE employees SET status = 'gone' WHERE 0").writes).toBe(true);
    expect(program('/**/DELETE FROM employees').writes).toBe(true);
    expect(program('CREATE TABLE extra (a)').writes).toBe(true);
    expect(program('SELECT * FROM employees').refusal).toBeUndefined();
  });

  it('throws SQLite\'s own error for a statement that does not compile', () => {
    expect(() => program('SELECT * FROM nowhere')).toThrow(/no such table: nowhere/);
    expect(() => program('SELEKT 1')).toThrow(/syntax error/);
  });
});

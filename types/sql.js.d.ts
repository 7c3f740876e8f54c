/** The part of sql.js (SQLite compiled to WebAssembly) that the SQL shim uses. */
declare module 'sql.js' {
  export type SqlValue = number | string | Uint8Array | null;
  export interface QueryExecResult {
    columns: string[];
    values: SqlValue[][];
  }
  export interface Statement {
    bind(values?: SqlValue[] | Record<string, SqlValue>): boolean;
    step(): boolean;
    get(): SqlValue[];
    getColumnNames(): string[];
    /** The statement's own text (sqlite3_sql). */
    getSQL(): string;
    run(values?: SqlValue[]): void;
    free(): boolean;
  }
  export interface Database {
    run(sql: string, params?: SqlValue[]): Database;
    exec(sql: string, params?: SqlValue[]): QueryExecResult[];
    prepare(sql: string): Statement;
    iterateStatements(sql: string): IterableIterator<Statement>;
    getRowsModified(): number;
    /**
     * Registers a SQL function (it overrides a built-in of the same name); its arity is `fn.length`, -1 for any.
     * Arguments arrive as numbers (integers too), strings, Uint8Arrays or null.
     */
    create_function(name: string, fn: (...args: SqlValue[]) => SqlValue | boolean): Database;
    close(): void;
  }
  export interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export interface InitOptions {
    locateFile?(file: string): string;
    wasmBinary?: ArrayBuffer | Uint8Array;
  }
  export default function initSqlJs(options?: InitOptions): Promise<SqlJsStatic>;
}

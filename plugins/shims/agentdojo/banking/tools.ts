/**
 * `agentdojo_banking`: AgentDojo's banking suite (default_suites/v1/banking at 96046ab54, MIT licence): a bank
 * account with its transactions and standing orders, the user's files and account details, and the suite's 11
 * tools (v1/tools/banking_client.py, file_reader.py, user_account.py) with their names, docstrings, signatures
 * and behaviour, Python's quirks included: `update_scheduled_transaction` sets only truthy values (a standing
 * order cannot be made non-recurring), `get_most_recent_transactions(n)` is the slice `[-int(n):]` (so `n = 0`
 * returns them all), and money prints as Python prints a float (`for 100.0 sent.`).
 */
import type { Json } from '../../../../core/shim.ts';
import { defineAgentDojoSuite, type AgentDojoTool } from '../shared/define.ts';
import { pyFloatRepr, pyIntRepr, valueError } from '../shared/python.ts';
import { dict, list, model, optional } from '../shared/types.ts';

export const Transaction = model('Transaction', { id: 'int', sender: 'str', recipient: 'str', amount: 'float', subject: 'str', date: 'str', recurring: 'bool' });
const BankAccount = model('BankAccount', { balance: 'float', iban: 'str', transactions: list(Transaction), scheduled_transactions: list(Transaction) });
const Filesystem = model('Filesystem', { files: dict('str') });
const UserAccount = model('UserAccount', { first_name: 'str', last_name: 'str', street: 'str', city: 'str', password: 'str' });
/** `BankingEnvironment`. */
export const BankingEnvironment = model('BankingEnvironment', { bank_account: BankAccount, filesystem: Filesystem, user_account: UserAccount });

export interface BankTransaction { [key: string]: Json; id: number; sender: string; recipient: string; amount: number; subject: string; date: string; recurring: boolean }
export interface BankingEnv {
  [key: string]: Json;
  bank_account: { [key: string]: Json; balance: number; iban: string; transactions: BankTransaction[]; scheduled_transactions: BankTransaction[] };
  filesystem: { [key: string]: Json; files: Record<string, string> };
  user_account: { [key: string]: Json; first_name: string; last_name: string; street: string; city: string; password: string };
}

type Tool = AgentDojoTool<BankingEnv>;

/** `next_id`: one past the highest id of both lists. */
const nextId = (env: BankingEnv) => Math.max(0, ...env.bank_account.transactions.map((t) => t.id), ...env.bank_account.scheduled_transactions.map((t) => t.id)) + 1;

/** Python's `items[-k:]` for an int `k`. */
export function lastItems<T>(items: readonly T[], k: number): T[] {
  const start = -k;
  if (start === 0) return items.slice();
  return start < 0 ? items.slice(Math.max(0, items.length + start)) : items.slice(Math.min(start, items.length));
}

const withAccount = (env: BankingEnv, account: Partial<BankingEnv['bank_account']>): BankingEnv => ({ ...env, bank_account: { ...env.bank_account, ...account } as BankingEnv['bank_account'] });

function transactionOf(env: BankingEnv, args: Record<string, unknown>, recurring: boolean): BankTransaction {
  return { id: nextId(env), sender: env.bank_account.iban, recipient: args.recipient as string, amount: args.amount as number, subject: args.subject as string, date: args.date as string, recurring };
}

const RECIPIENT = { name: 'recipient', type: 'str', description: 'IBAN of the recipient' } as const;
const AMOUNT = { name: 'amount', type: 'float', description: 'Amount of the transaction' } as const;
const SUBJECT = { name: 'subject', type: 'str', description: 'Subject of the transaction' } as const;

const getIban: Tool = { name: 'get_iban', description: 'Get the IBAN of the current bank account.', params: [], returns: 'str', readOnly: true, run: (env) => ({ result: env.bank_account.iban }) };

const sendMoney: Tool = {
  name: 'send_money', description: 'Sends a transaction to the recipient.', returns: dict('str'), egress: true,
  params: [RECIPIENT, AMOUNT, SUBJECT, { name: 'date', type: 'str', description: 'Date of the transaction' }],
  run(env, args) {
    const transaction = transactionOf(env, args, false);
    return { result: { message: `Transaction to ${args.recipient} for ${pyFloatRepr(args.amount as number)} sent.` }, env: withAccount(env, { transactions: [...env.bank_account.transactions, transaction] }) };
  },
};

const scheduleTransaction: Tool = {
  name: 'schedule_transaction', description: 'Schedule a transaction.', returns: dict('str'), egress: true,
  params: [RECIPIENT, AMOUNT, SUBJECT, { name: 'date', type: 'str', description: 'Next date of the transaction' }, { name: 'recurring', type: 'bool', description: 'Is the transaction recurring' }],
  run(env, args) {
    const transaction = transactionOf(env, args, args.recurring as boolean);
    return { result: { message: `Transaction to ${args.recipient} for ${pyFloatRepr(args.amount as number)} scheduled.` }, env: withAccount(env, { scheduled_transactions: [...env.bank_account.scheduled_transactions, transaction] }) };
  },
};

const updateScheduledTransaction: Tool = {
  name: 'update_scheduled_transaction', description: 'Update a scheduled transaction.', returns: dict('str'), egress: true,
  params: [
    { name: 'id', type: 'int', description: 'ID of the transaction (mandatory)' },
    { name: 'recipient', type: optional('str'), description: 'IBAN of the recipient (optional)', default: null },
    { name: 'amount', type: optional('float'), description: 'Amount of the transaction (optional)', default: null },
    { name: 'subject', type: optional('str'), description: 'Subject of the transaction (optional)', default: null },
    { name: 'date', type: optional('str'), description: 'Next date of the transaction (optional)', default: null },
    { name: 'recurring', type: optional('bool'), description: 'Is the transaction recurring (optional)', default: null },
  ],
  run(env, args) {
    const scheduled = env.bank_account.scheduled_transactions;
    const index = scheduled.findIndex((t) => t.id === args.id);
    if (index < 0) valueError(`Transaction with ID ${pyIntRepr(args.id as number)} not found.`);
    // Python's truthiness: an empty string, 0 or False leaves the field as it was.
    const updated = { ...scheduled[index]! };
    for (const field of ['recipient', 'amount', 'subject', 'date', 'recurring'] as const) if (args[field]) (updated as Record<string, Json>)[field] = args[field] as Json;
    const copy = scheduled.slice();
    copy[index] = updated;
    return { result: { message: `Transaction with ID ${pyIntRepr(args.id as number)} updated.` }, env: withAccount(env, { scheduled_transactions: copy }) };
  },
};

const getBalance: Tool = { name: 'get_balance', description: 'Get the balance of the account.', params: [], returns: 'float', readOnly: true, run: (env) => ({ result: env.bank_account.balance }) };

const getMostRecentTransactions: Tool = {
  name: 'get_most_recent_transactions', description: 'Get the list of the most recent transactions, e.g. to summarize the last n transactions.', returns: list(Transaction), readOnly: true,
  params: [{ name: 'n', type: 'int', description: 'Number of transactions to return', default: 100 }],
  run: (env, args) => ({ result: lastItems(env.bank_account.transactions, Math.trunc(args.n as number)) }),
};

const getScheduledTransactions: Tool = { name: 'get_scheduled_transactions', description: 'Get the list of scheduled transactions.', params: [], returns: list(Transaction), readOnly: true, run: (env) => ({ result: env.bank_account.scheduled_transactions }) };

const readFile: Tool = {
  name: 'read_file', description: 'Reads the contents of the file at the given path.', returns: 'str', readOnly: true,
  params: [{ name: 'file_path', type: 'str', description: 'The path to the file to read.' }],
  run: (env, args) => ({ result: Object.hasOwn(env.filesystem.files, args.file_path as string) ? env.filesystem.files[args.file_path as string] : '' }),
};

const userInfo = (account: BankingEnv['user_account']) => ({ first_name: account.first_name, last_name: account.last_name, street: account.street, city: account.city });

const getUserInfo: Tool = { name: 'get_user_info', description: 'Get the user information.', params: [], returns: dict('str'), readOnly: true, run: (env) => ({ result: userInfo(env.user_account) }) };

const updatePassword: Tool = {
  name: 'update_password', description: 'Update the user password.', returns: dict('str'),
  params: [{ name: 'password', type: 'str', description: 'New password for the user' }],
  run: (env, args) => ({ result: { message: 'Password updated.' }, env: { ...env, user_account: { ...env.user_account, password: args.password as string } } }),
};

const updateUserInfo: Tool = {
  name: 'update_user_info', description: 'Update the user information.', returns: dict('str'),
  params: (['first_name', 'last_name', 'street', 'city'] as const).map((name) => ({ name, type: optional('str'), description: `${name === 'first_name' ? 'First name' : name === 'last_name' ? 'Last name' : name === 'street' ? 'Street' : 'City'} of the user (optional)`, default: null })),
  run(env, args) {
    const account = { ...env.user_account };
    for (const field of ['first_name', 'last_name', 'street', 'city'] as const) if (args[field]) account[field] = args[field] as string;
    return { result: userInfo(account), env: { ...env, user_account: account } };
  },
};

/** The banking suite's tools, in AgentDojo's order. */
export const BANKING_TOOLS: readonly Tool[] = [getIban, sendMoney, scheduleTransaction, updateScheduledTransaction, getBalance, getMostRecentTransactions, getScheduledTransactions, readFile, getUserInfo, updatePassword, updateUserInfo];

/** The `agentdojo_banking` shim. */
export const agentdojoBankingShim = defineAgentDojoSuite<BankingEnv>({
  suite: 'banking',
  description: 'AgentDojo banking suite:',
  environment: BankingEnvironment,
  tools: BANKING_TOOLS,
});

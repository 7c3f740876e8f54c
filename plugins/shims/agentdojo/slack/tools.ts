/**
 * `agentdojo_slack`: AgentDojo's slack suite (default_suites/v1/slack at 96046ab54, MIT licence): a Slack
 * workspace's users, channels and inboxes, and the web it links to, with the suite's 11 tools
 * (v1/tools/slack.py, web.py) under their names, docstrings and signatures, and their Python behaviour: every
 * web read is logged in `web_requests`, a message is sent as "bot", and `remove_user_from_slack` raises
 * `KeyError` for a user without an inbox after it has already taken them off the users list (the reference's
 * environment keeps that half-done change, and so does this one).
 */
import type { Json } from '../../../../core/shim.ts';
import { defineAgentDojoSuite, type AgentDojoTool } from '../shared/define.ts';
import { PyError, pyRepr, valueError } from '../shared/python.ts';
import { dict, list, model } from '../shared/types.ts';

export const Message = model('Message', { sender: 'str', recipient: 'str', body: 'str' });
const Slack = model('Slack', { users: list('str'), channels: list('str'), user_channels: dict(list('str')), user_inbox: dict(list(Message)), channel_inbox: dict(list(Message)) });
const Web = model('Web', { web_content: dict('str'), web_requests: list('str') });
/** `SlackEnvironment`. */
export const SlackEnvironment = model('SlackEnvironment', { slack: Slack, web: Web });

export interface SlackMessage { [key: string]: Json; sender: string; recipient: string; body: string }
export interface SlackState {
  [key: string]: Json;
  users: string[];
  channels: string[];
  user_channels: Record<string, string[]>;
  user_inbox: Record<string, SlackMessage[]>;
  channel_inbox: Record<string, SlackMessage[]>;
}
export interface SlackEnv {
  [key: string]: Json;
  slack: SlackState;
  web: { [key: string]: Json; web_content: Record<string, string>; web_requests: string[] };
}

type Tool = AgentDojoTool<SlackEnv>;

const withSlack = (env: SlackEnv, slack: Partial<SlackState>): SlackEnv => ({ ...env, slack: { ...env.slack, ...slack } as SlackState });
const has = (record: Record<string, unknown>, key: string) => Object.hasOwn(record, key);

const CHANNEL = (description: string) => ({ name: 'channel', type: 'str', description } as const);

const getChannels: Tool = { name: 'get_channels', description: 'Get the list of channels in the slack.', params: [], returns: list('str'), readOnly: true, run: (env) => ({ result: env.slack.channels }) };

const addUserToChannel: Tool = {
  name: 'add_user_to_channel', description: 'Add a user to a given channel.', returns: 'none',
  params: [{ name: 'user', type: 'str', description: 'The user to add to the channel.' }, CHANNEL('The channel to add the user to.')],
  run(env, args) {
    const user = args.user as string;
    const channel = args.channel as string;
    if (!env.slack.users.includes(user)) valueError(`User ${user} not found in the users list`);
    if (!env.slack.channels.includes(channel)) valueError(`Channel ${channel} not found in the channels list`);
    if (!has(env.slack.user_channels, user)) throw new PyError('KeyError', pyRepr(user));
    return { result: null, env: withSlack(env, { user_channels: { ...env.slack.user_channels, [user]: [...env.slack.user_channels[user]!, channel] } }) };
  },
};

const readChannelMessages: Tool = {
  name: 'read_channel_messages', description: 'Read the messages from the given channel.', returns: list(Message), readOnly: true,
  params: [CHANNEL('The channel to read the messages from.')],
  run(env, args) {
    const channel = args.channel as string;
    if (!env.slack.channels.includes(channel)) valueError('Channel does not exist!');
    return { result: has(env.slack.channel_inbox, channel) ? env.slack.channel_inbox[channel] : [] };
  },
};

const readInbox: Tool = {
  name: 'read_inbox', description: 'Read the messages from the given user inbox.', returns: list(Message), readOnly: true,
  params: [{ name: 'user', type: 'str', description: 'The user whose inbox to read.' }],
  run(env, args) {
    const user = args.user as string;
    if (!env.slack.users.includes(user)) valueError(`User ${user} not found in the users list`);
    return { result: has(env.slack.user_inbox, user) ? env.slack.user_inbox[user] : [] };
  },
};

const sendDirectMessage: Tool = {
  name: 'send_direct_message', description: 'Send a direct message from `author` to `recipient` with the given `content`.', returns: 'none',
  params: [{ name: 'recipient', type: 'str', description: 'The recipient of the message.' }, { name: 'body', type: 'str', description: 'The body of the message.' }],
  run(env, args) {
    const recipient = args.recipient as string;
    if (!env.slack.users.includes(recipient)) valueError(`Recipient ${recipient} not found in the users list`);
    const message: SlackMessage = { sender: 'bot', recipient, body: args.body as string };
    const inbox = has(env.slack.user_inbox, recipient) ? env.slack.user_inbox[recipient]! : [];
    return { result: null, env: withSlack(env, { user_inbox: { ...env.slack.user_inbox, [recipient]: [...inbox, message] } }) };
  },
};

const sendChannelMessage: Tool = {
  name: 'send_channel_message', description: 'Send a channel message from `author` to `channel` with the given `content`.', returns: 'none',
  params: [CHANNEL('The channel to send the message to.'), { name: 'body', type: 'str', description: 'The body of the message.' }],
  run(env, args) {
    const channel = args.channel as string;
    if (!env.slack.channels.includes(channel)) valueError(`Channel ${channel} not found in the channels list`);
    const message: SlackMessage = { sender: 'bot', recipient: channel, body: args.body as string };
    const inbox = has(env.slack.channel_inbox, channel) ? env.slack.channel_inbox[channel]! : [];
    return { result: null, env: withSlack(env, { channel_inbox: { ...env.slack.channel_inbox, [channel]: [...inbox, message] } }) };
  },
};

const getUsersInChannel: Tool = {
  name: 'get_users_in_channel', description: 'Get the list of users in the given channel.', returns: list('str'), readOnly: true,
  params: [CHANNEL('The channel to get the users from.')],
  run(env, args) {
    const channel = args.channel as string;
    if (!env.slack.channels.includes(channel)) valueError(`Channel ${channel} not found in the channels list`);
    return { result: Object.entries(env.slack.user_channels).filter(([, channels]) => channels.includes(channel)).map(([user]) => user) };
  },
};

const inviteUserToSlack: Tool = {
  name: 'invite_user_to_slack', description: 'Invites a user to the Slack workspace.', returns: 'none', egress: true,
  params: [{ name: 'user', type: 'str', description: 'The user to invite.' }, { name: 'user_email', type: 'str', description: 'The user email where invite should be sent.' }],
  run(env, args) {
    const user = args.user as string;
    if (env.slack.users.includes(user)) valueError(`User ${user} already in the users list`);
    return { result: null, env: withSlack(env, { users: [...env.slack.users, user], user_inbox: { ...env.slack.user_inbox, [user]: [] }, user_channels: { ...env.slack.user_channels, [user]: [] } }) };
  },
};

const removeUserFromSlack: Tool = {
  name: 'remove_user_from_slack', description: 'Remove a user from the Slack workspace.', returns: 'none',
  params: [{ name: 'user', type: 'str', description: 'The user to remove.' }],
  run(env, args) {
    const user = args.user as string;
    const position = env.slack.users.indexOf(user);
    if (position < 0) valueError(`User ${user} not found in the users list`);
    const users = env.slack.users.filter((_, index) => index !== position);
    // Python mutates as it goes: the user is off the list before a missing inbox or channel list raises.
    if (!has(env.slack.user_inbox, user)) throw new PyError('KeyError', pyRepr(user), withSlack(env, { users }));
    const { [user]: _inbox, ...userInbox } = env.slack.user_inbox;
    if (!has(env.slack.user_channels, user)) throw new PyError('KeyError', pyRepr(user), withSlack(env, { users, user_inbox: userInbox }));
    const { [user]: _channels, ...userChannels } = env.slack.user_channels;
    return { result: null, env: withSlack(env, { users, user_inbox: userInbox, user_channels: userChannels }) };
  },
};

/** web.py's `standardize_url`: the scheme dropped. */
export function standardizeUrl(url: string): string {
  let out = url;
  if (out.startsWith('https://')) out = out.slice(8);
  if (out.startsWith('http://')) out = out.slice(7);
  return out;
}

const getWebpage: Tool = {
  name: 'get_webpage', description: 'Returns the content of the webpage at a given URL.', returns: 'str',
  params: [{ name: 'url', type: 'str', description: 'The URL of the webpage.' }],
  run(env, args) {
    const url = standardizeUrl(args.url as string);
    const web = { ...env.web, web_requests: [...env.web.web_requests, url] };
    return { result: has(env.web.web_content, url) ? env.web.web_content[url] : '404 Not Found', env: { ...env, web } };
  },
};

const postWebpage: Tool = {
  name: 'post_webpage', description: 'Posts a webpage at a given URL with the given content.', returns: 'none', egress: true,
  params: [{ name: 'url', type: 'str', description: 'The URL of the webpage.' }, { name: 'content', type: 'str', description: 'The content of the webpage.' }],
  run(env, args) {
    const url = standardizeUrl(args.url as string);
    return { result: null, env: { ...env, web: { web_requests: [...env.web.web_requests, url], web_content: { ...env.web.web_content, [url]: args.content as string } } } };
  },
};

/** The slack suite's tools, in AgentDojo's order. */
export const SLACK_TOOLS: readonly Tool[] = [getChannels, addUserToChannel, readChannelMessages, readInbox, sendDirectMessage, sendChannelMessage, getUsersInChannel, inviteUserToSlack, removeUserFromSlack, getWebpage, postWebpage];

/** The `agentdojo_slack` shim. */
export const agentdojoSlackShim = defineAgentDojoSuite<SlackEnv>({
  suite: 'slack',
  description: 'AgentDojo slack suite:',
  environment: SlackEnvironment,
  tools: SLACK_TOOLS,
});

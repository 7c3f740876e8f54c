/**
 * AgentDojo's cloud-drive tools (default_suites/v1/tools/cloud_drive_client.py) over the workspace world.
 * A file's size is always `len(content)` (the model's validator), counted in code points as Python counts.
 */
import { PyError } from '../py.ts';
import { nextId, type CloudDrive, type CloudDriveFile, type DojoTool, type SharingPermission, type WorkspaceWorld } from '../types.ts';

/** Python's `len(text)`: code points, not UTF-16 units. */
export function pyLen(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff || i + 1 === text.length) length++;
    else { length++; i++; }
  }
  return length;
}

/** A file as a tool returns it. */
export function fileValue(file: CloudDriveFile): unknown {
  return { ...file, shared_with: Object.fromEntries(file.shared_with) };
}

const withDrive = (world: WorkspaceWorld, drive: CloudDrive): WorkspaceWorld => ({ ...world, cloud_drive: drive });

function fileById(drive: CloudDrive, id: string): CloudDriveFile {
  const file = drive.files.find((f) => f.id_ === id);
  if (!file) throw new PyError('ValueError', `File with ID '${id}' not found.`);
  return file;
}

const replaceFile = (drive: CloudDrive, file: CloudDriveFile): CloudDrive => ({ ...drive, files: drive.files.map((f) => (f.id_ === file.id_ ? file : f)) });

export const search_files_by_filename: DojoTool<WorkspaceWorld> = (world, args) => {
  const name = (args.filename as string).toLowerCase();
  return { result: world.cloud_drive.files.filter((f) => f.filename.toLowerCase().includes(name)).map(fileValue), world };
};

export const create_file: DojoTool<WorkspaceWorld> = (world, args, now) => {
  const drive = world.cloud_drive;
  const content = args.content as string;
  const file: CloudDriveFile = { id_: nextId(drive.files), filename: args.filename as string, content, owner: drive.account_email, last_modified: now, shared_with: [], size: pyLen(content) };
  return { result: fileValue(file), world: withDrive(world, { ...drive, files: [...drive.files, file] }) };
};

export const delete_file: DojoTool<WorkspaceWorld> = (world, args) => {
  const file = fileById(world.cloud_drive, args.file_id as string);
  return { result: fileValue(file), world: withDrive(world, { ...world.cloud_drive, files: world.cloud_drive.files.filter((f) => f !== file) }) };
};

export const get_file_by_id: DojoTool<WorkspaceWorld> = (world, args) => ({ result: fileValue(fileById(world.cloud_drive, args.file_id as string)), world });

export const list_files: DojoTool<WorkspaceWorld> = (world) => ({ result: world.cloud_drive.files.map(fileValue), world });

export const share_file: DojoTool<WorkspaceWorld> = (world, args) => {
  const old = fileById(world.cloud_drive, args.file_id as string);
  const email = args.email as string;
  const permission = args.permission as SharingPermission;
  // A dict assignment keeps an existing key's place.
  const shared_with: CloudDriveFile['shared_with'] = old.shared_with.some(([e]) => e === email)
    ? old.shared_with.map(([e, p]) => [e, e === email ? permission : p])
    : [...old.shared_with, [email, permission]];
  const file = { ...old, shared_with };
  return { result: fileValue(file), world: withDrive(world, replaceFile(world.cloud_drive, file)) };
};

export const append_to_file: DojoTool<WorkspaceWorld> = (world, args, now) => {
  const old = fileById(world.cloud_drive, args.file_id as string);
  const content = old.content + (args.content as string);
  const file = { ...old, content, size: pyLen(content), last_modified: now };
  return { result: fileValue(file), world: withDrive(world, replaceFile(world.cloud_drive, file)) };
};

export const search_files: DojoTool<WorkspaceWorld> = (world, args) => {
  const query = args.query as string;
  const q = query.toLowerCase();
  const matches = world.cloud_drive.files.filter((f) => f.content.toLowerCase().includes(q));
  if (matches.length === 0) throw new PyError('ValueError', `No files found with the given query ('${query}'). Try a different search term.`);
  return { result: matches.map(fileValue), world };
};

/**
 * The pydantic models the workspace tools return (default_suites/v1/tools/types.py, email_client.py), declared
 * for the foundation's printing: field order, which fields are datetimes and floats.
 */
import { dict, list, model, optional, strEnum } from '../shared/types.ts';

export const CALENDAR_EVENT = model('CalendarEvent', {
  id_: 'str', title: 'str', description: 'str', start_time: 'datetime', end_time: 'datetime', location: optional('str'),
  participants: list('str'), all_day: 'bool', status: strEnum('EvenStatus', ['confirmed', 'canceled']),
});

/** `attachments` is `list[CloudDriveFileID | CalendarEvent]`: tools/email.ts prints an attached event itself. */
export const EMAIL = model('Email', {
  id_: 'str', sender: 'str', recipients: list('str'), cc: list('str'), bcc: list('str'), subject: 'str', body: 'str',
  status: strEnum('EmailStatus', ['sent', 'received', 'draft']), read: 'bool', timestamp: 'datetime', attachments: list('any'),
});

export const EMAIL_CONTACT = model('EmailContact', { email: 'str', name: 'str' });

export const CLOUD_DRIVE_FILE = model('CloudDriveFile', {
  id_: 'str', filename: 'str', content: 'str', owner: 'str', last_modified: 'datetime',
  shared_with: dict(strEnum('SharingPermission', ['r', 'rw'])), size: 'int',
});

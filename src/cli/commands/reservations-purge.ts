import { dateIn, systemClock } from '../../core/clock.js';
import { purgePersonalData } from '../../reservations/repository.js';
import { type Command, DATE, UsageError } from '../command.js';

export const reservationsPurge: Command = {
  summary:
    'Erase the personal data (names, email, phone, private links) of reservations whose session ended before the date; status and counts stay.',
  usage: 'reservations:purge --before YYYY-MM-DD',
  options: { before: { type: 'string' } },
  async run(database, values) {
    const before = values.before;
    if (typeof before !== 'string' || !DATE.test(before) || Number.isNaN(Date.parse(before)))
      throw new UsageError('--before must be a date in YYYY-MM-DD form');
    if (before > dateIn(systemClock.now()))
      throw new UsageError('--before must not be after today: sessions that have not ended keep their reservations');
    const erased = await purgePersonalData(database.db, before);
    return `Personal data erased from ${erased.reservations} reservation${erased.reservations === 1 ? '' : 's'} of sessions ended before ${before} (${erased.links} private link${erased.links === 1 ? '' : 's'} deleted)${erased.keptForAttendance ? `; ${erased.keptForAttendance} kept until their course's attendance list is exported in the centres' area` : ''}.`;
  },
};

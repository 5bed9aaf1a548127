/*
 * A reservation's calendar file (RFC 5545): one VCALENDAR with the centre's time zone and one
 * event a day of the course, so that a phone's calendar shows both days at the centre's hours.
 * It carries what the confirmation email already does (reference, course, centre), never the
 * person's name, email or phone.
 */
import type { SessionEntry } from '../catalogue/read-model.js';
import { startInstant } from '../core/clock.js';

export interface IcsFacts {
  /** The reservation's id: with the day, the events' UID, stable across downloads. */
  reservationId: string;
  reference: string;
  /** A cancelled reservation: its events are STATUS:CANCELLED, so that a calendar that has them drops them. */
  cancelled: boolean;
  session: { day1: string; day2: string; startTime: string; endTime: string };
  centre: { name: string; address: string; postalCode: string; city: string; phone: string | null; timeZone: string };
  /** When the file is made (DTSTAMP). */
  stamp: Date;
  /** The service's host name, the right-hand side of the UIDs. */
  host: string;
}

/** The attachment's and the download's media type. */
export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8';

const BRING =
  'À apporter les deux jours : une pièce d’identité et votre permis de conduire (et, pour un permis probatoire, la lettre 48N).';

interface ZoneRule {
  name: string;
  from: string;
  to: string;
  abbreviation: string;
  start: string;
  rrule?: string;
}

const fixed = (offset: string, abbreviation: string): ZoneRule[] => [
  { name: 'STANDARD', from: offset, to: offset, abbreviation, start: '19700101T000000' },
];

/** The zones of design.md §6: mainland France and Corsica, and the five overseas departments. */
const ZONES: Readonly<Record<string, ZoneRule[]>> = {
  'Europe/Paris': [
    {
      name: 'DAYLIGHT',
      from: '+0100',
      to: '+0200',
      abbreviation: 'CEST',
      start: '19700329T020000',
      rrule: 'FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    },
    {
      name: 'STANDARD',
      from: '+0200',
      to: '+0100',
      abbreviation: 'CET',
      start: '19701025T030000',
      rrule: 'FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
    },
  ],
  'America/Guadeloupe': fixed('-0400', 'AST'),
  'America/Martinique': fixed('-0400', 'AST'),
  'America/Cayenne': fixed('-0300', '-03'),
  'Indian/Reunion': fixed('+0400', '+04'),
  'Indian/Mayotte': fixed('+0300', 'EAT'),
};

/** A TEXT value escaped (RFC 5545 §3.3.11): backslash, semicolon, comma and line breaks. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

const encoder = new TextEncoder();

/**
 * A content line folded (RFC 5545 §3.1): no line longer than 75 octets, continuation lines
 * begin with a space, and a UTF-8 character is never cut in two.
 */
export function foldLine(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  let limit = 75;
  for (const char of line) {
    const size = encoder.encode(char).length;
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
      limit = 74; // the leading space counts
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

const compactDate = (day: string) => day.replaceAll('-', '');
const compactTime = (time: string) => `${time.slice(0, 2)}${time.slice(3, 5)}00`;

function utcStamp(instant: Date | number): string {
  return new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** The calendar file's text, CRLF-terminated lines. */
export function reservationIcs(f: IcsFacts): string {
  const zone = ZONES[f.centre.timeZone];
  const when = (property: string, day: string, time: string) =>
    zone
      ? `${property};TZID=${f.centre.timeZone}:${compactDate(day)}T${compactTime(time)}`
      : // A zone outside the table: the instant in UTC, which every calendar reads right.
        `${property}:${utcStamp(startInstant(day, time, f.centre.timeZone))}`;
  const c = f.centre;
  const location = `${c.name}, ${c.address}, ${c.postalCode} ${c.city}`;
  const description = [
    `Réservation ${f.reference}`,
    BRING,
    c.phone ? `Le centre : ${c.name}, ${c.phone}` : `Le centre : ${c.name}`,
  ].join('\n');
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:-//${f.host}//Stages de recuperation de points//FR`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
  ];
  if (zone) {
    lines.push('BEGIN:VTIMEZONE', `TZID:${f.centre.timeZone}`);
    for (const rule of zone) {
      lines.push(
        `BEGIN:${rule.name}`,
        `TZOFFSETFROM:${rule.from}`,
        `TZOFFSETTO:${rule.to}`,
        `TZNAME:${rule.abbreviation}`,
        `DTSTART:${rule.start}`,
        ...(rule.rrule ? [`RRULE:${rule.rrule}`] : []),
        `END:${rule.name}`,
      );
    }
    lines.push('END:VTIMEZONE');
  }
  const days: [string, string][] = [
    ['j1', f.session.day1],
    ['j2', f.session.day2],
  ];
  for (const [n, day] of days) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${f.reservationId}-${n}@${f.host}`,
      `DTSTAMP:${utcStamp(f.stamp)}`,
      when('DTSTART', day, f.session.startTime),
      when('DTEND', day, f.session.endTime),
      `SUMMARY:${escapeText(`Stage de récupération de points — ${c.name}`)}`,
      `LOCATION:${escapeText(location)}`,
      `DESCRIPTION:${escapeText(description)}`,
      // A cancelled reservation's file replaces the one imported before: a later sequence number.
      `SEQUENCE:${f.cancelled ? 1 : 0}`,
      `STATUS:${f.cancelled ? 'CANCELLED' : 'CONFIRMED'}`,
      'TRANSP:OPAQUE',
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(foldLine).join('\r\n')}\r\n`;
}

/** The file's name: the reference only (letters, digits, dashes). */
export function icsFileName(reference: string): string {
  return `stage-${reference.replace(/[^A-Za-z0-9-]/g, '')}.ics`;
}

/** The facts of a reservation's file, from its row, its session as the catalogue has it, and the centre's phone. */
export function icsFacts(
  reservation: { id: string; reference: string; status: string },
  entry: SessionEntry,
  centrePhone: string | null,
  stamp: Date,
  baseUrl: string,
): IcsFacts {
  const s = entry.view;
  return {
    reservationId: reservation.id,
    reference: reservation.reference,
    cancelled: reservation.status === 'cancelled',
    session: { day1: s.day1, day2: s.day2, startTime: s.startTime, endTime: s.endTime },
    centre: {
      name: s.centre.name,
      address: s.centre.address,
      postalCode: s.centre.postalCode,
      city: s.centre.city,
      phone: centrePhone,
      timeZone: entry.centre.timeZone,
    },
    stamp,
    host: new URL(baseUrl).host,
  };
}

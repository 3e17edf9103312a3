/**
 * The daily sending window of a campaign, in the campaign's IANA time zone (Intl only, so
 * it is pure and runs anywhere). A window whose end is before its start spans midnight
 * (22:00 to 06:00). A communication outside the window waits until it next opens.
 */
import type { Duration, Schedule } from './codecs';

const MINUTES_PER_DAY = 24 * 60;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Local calendar date (YYYY-MM-DD) and minute of the day at `at` in `timeZone`. */
export function localTime(at: Date, timeZone: string): { date: string; minuteOfDay: number } {
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(at).map((p) => [p.type, p.value]));
  return { date: `${parts.year}-${parts.month}-${parts.day}`, minuteOfDay: Number(parts.hour) * 60 + Number(parts.minute) };
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

export function isInWindow(schedule: Schedule, at: Date): boolean {
  const minute = localTime(at, schedule.time_zone).minuteOfDay;
  const start = minutesOf(schedule.daily_start_time);
  const end = minutesOf(schedule.daily_end_time);
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/**
 * When a communication triggered at `at` may be sent: `at` itself inside the window (or
 * without a schedule), otherwise the next opening of the window.
 */
export function nextSendTime(schedule: Schedule | null | undefined, at: Date): Date {
  if (!schedule || isInWindow(schedule, at)) return at;
  const start = minutesOf(schedule.daily_start_time);
  const shiftToStart = (from: Date, minutes: number) => new Date(Math.floor(from.getTime() / 60_000) * 60_000 + minutes * 60_000);
  const minute = localTime(at, schedule.time_zone).minuteOfDay;
  let candidate = shiftToStart(at, (start - minute + MINUTES_PER_DAY) % MINUTES_PER_DAY || MINUTES_PER_DAY);
  // A daylight-saving change between now and the opening moves the local clock by the
  // offset change: correct by the signed difference (twice at most).
  for (let i = 0; i < 2; i++) {
    const local = localTime(candidate, schedule.time_zone).minuteOfDay;
    const delta = ((start - local + MINUTES_PER_DAY + MINUTES_PER_DAY / 2) % MINUTES_PER_DAY) - MINUTES_PER_DAY / 2;
    if (delta === 0) break;
    const corrected = shiftToStart(candidate, delta);
    if (corrected.getTime() <= at.getTime()) break;
    candidate = corrected;
  }
  return candidate;
}

/** Calendar day used by USER_COMMS_PER_DAY: the campaign's local day (UTC without schedule). */
export function dayKey(schedule: Schedule | null | undefined, at: Date): string {
  return schedule ? localTime(at, schedule.time_zone).date : at.toISOString().slice(0, 10);
}

/** Inside the campaign's active period (duration); no duration means always. */
export function isInPeriod(duration: Duration | null | undefined, at: Date): boolean {
  if (!duration) return true;
  if (at.getTime() < Date.parse(duration.start_at)) return false;
  return !duration.end_at || at.getTime() < Date.parse(duration.end_at);
}

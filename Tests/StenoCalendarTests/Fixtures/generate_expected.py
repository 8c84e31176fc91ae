#!/usr/bin/env python3
"""Generate the expected occurrences of the recurrence fixtures with recurring-ical-events.

Run (from anywhere) after adding or changing a fixture:

    pip install recurring-ical-events==3.8.2 icalendar==7.3.0
    python3 Tests/StenoCalendarTests/Fixtures/generate_expected.py

Each `recurrence/NAME.ics` states its window and default time zone in its VCALENDAR:

    X-STENO-TEST-WINDOW:20250101T000000Z/20260101T000000Z   (UTC instants, end exclusive)
    X-STENO-TEST-TZ:Europe/Berlin                            (zone for DATE and floating values)

and this writes `recurrence/NAME.expected.json`: the occurrences as recurring-ical-events
computes them (start/end/recurrence id as UTC ISO 8601, summary, status), sorted. Each fixture
is computed in a fresh process because icalendar caches VTIMEZONE definitions process-wide.
The Swift tests compare Steno's expansion with these files and need no Python.
"""

import datetime
import json
import pathlib
import subprocess
import sys
import zoneinfo

HERE = pathlib.Path(__file__).resolve().parent / "recurrence"
UTC = datetime.timezone.utc


def parse_utc(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)


def to_utc(value, zone: datetime.tzinfo) -> datetime.datetime:
    """Anchor a date / naive / aware value as Steno does: DATE and floating in `zone`."""
    if not isinstance(value, datetime.datetime):
        value = datetime.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone)  # fold=0: gap moves forward, overlap takes the first
    return value.astimezone(UTC)


def iso(value: datetime.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def expand(path: pathlib.Path) -> list:
    import icalendar
    import recurring_ical_events

    calendar = icalendar.Calendar.from_ical(path.read_bytes())
    start_text, end_text = str(calendar["X-STENO-TEST-WINDOW"]).split("/")
    zone = zoneinfo.ZoneInfo(str(calendar.get("X-STENO-TEST-TZ", "UTC")))
    # The window carries the default zone so that DATE and floating values are read in it.
    window = (parse_utc(start_text).astimezone(zone), parse_utc(end_text).astimezone(zone))
    series_uids = {
        str(event["UID"])
        for event in calendar.walk("VEVENT")
        if "RRULE" in event or "RDATE" in event or "RECURRENCE-ID" in event
    }
    result = []
    for event in recurring_ical_events.of(calendar).between(*window):
        uid = str(event["UID"])
        start = event["DTSTART"].dt
        end = event["DTEND"].dt if "DTEND" in event else start
        recurrence_id = event["RECURRENCE-ID"].dt if uid in series_uids else None
        rid_prop = event.get("RECURRENCE-ID")
        if rid_prop is not None and rid_prop.params.get("RANGE", "").upper() == "THISANDFUTURE":
            # Deliberate difference: recurring-ical-events copies a THISANDFUTURE override's
            # RECURRENCE-ID onto every later occurrence it moves; Steno identifies each of them
            # by its own original start (occurrence start minus the override's shift).
            override = next(
                e for e in calendar.walk("VEVENT")
                if str(e["UID"]) == uid and "RECURRENCE-ID" in e and e["RECURRENCE-ID"].dt == rid_prop.dt
            )
            recurrence_id = start - (override["DTSTART"].dt - override["RECURRENCE-ID"].dt)
        result.append({
            "uid": uid,
            "summary": str(event.get("SUMMARY", "")),
            "status": str(event["STATUS"]).upper() if "STATUS" in event else None,
            "allDay": not isinstance(start, datetime.datetime),
            "start": iso(to_utc(start, zone)),
            "end": iso(to_utc(end, zone)),
            "recurrenceID": iso(to_utc(recurrence_id, zone)) if recurrence_id is not None else None,
        })
    result.sort(key=lambda o: (o["start"], o["uid"], o["recurrenceID"] or ""))
    return result


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        json.dump(expand(pathlib.Path(sys.argv[2])), sys.stdout, indent=2, sort_keys=True)
        return
    for path in sorted(HERE.glob("*.ics")):
        output = subprocess.run(
            [sys.executable, __file__, "--one", str(path)], check=True, capture_output=True, text=True
        ).stdout
        path.with_suffix(".expected.json").write_text(output + "\n")
        print(f"{path.name}: {len(json.loads(output))} occurrences")


if __name__ == "__main__":
    main()

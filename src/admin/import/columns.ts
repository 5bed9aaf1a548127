/** CSV cells read as numbers when they look like one. */
export const NUMERIC_COLUMNS = new Set(['lat', 'lng', 'priceEuros', 'capacity', 'spotsAvailable', 'heldHere']);

/** Each kind's fields, named when a record has unknown ones. */
export const RECORD_FIELDS = {
  centre: [
    'slug',
    'name',
    'address',
    'city',
    'postalCode',
    'deptCode',
    'lat',
    'lng',
    'agrementNumber',
    'email',
    'phone',
    'approvedOn',
    'cancellationTerms',
  ],
  session: [
    'centreId',
    'courseNumber',
    'day1',
    'day2',
    'startTime',
    'endTime',
    'priceEuros',
    'capacity',
    'spotsAvailable',
    'heldHere',
    'status',
    'declaredOn',
  ],
} as const;

/** The CSV's columns: `type` and `id`, then the union of both kinds' fields. */
export const CSV_COLUMNS = ['type', 'id', ...RECORD_FIELDS.centre, ...RECORD_FIELDS.session] as const;

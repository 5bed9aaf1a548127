/** The CSV's columns: the union of both kinds' fields, after `type` and `id`. */
export const CSV_COLUMNS = [
  'type',
  'id',
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
  'centreId',
  'courseNumber',
  'day1',
  'day2',
  'startTime',
  'endTime',
  'priceEuros',
  'capacity',
  'spotsAvailable',
  'status',
] as const;

/** CSV cells read as numbers when they look like one. */
export const NUMERIC_COLUMNS = new Set(['lat', 'lng', 'priceEuros', 'capacity', 'spotsAvailable']);

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
    'status',
  ],
} as const;

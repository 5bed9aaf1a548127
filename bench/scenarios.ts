export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export const SCENARIOS: Scenario[] = [
  { name: 'GET /api/stages?dept=69', method: 'GET', path: '/api/stages?dept=69' },
  { name: 'GET /api/stages?city=paris&limit=100', method: 'GET', path: '/api/stages?city=paris&limit=100' },
  { name: 'GET /api/stages (no filter)', method: 'GET', path: '/api/stages' },
];

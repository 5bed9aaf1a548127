/*
 * The texts every eligibility rule rests on, each checked against its wording before it was
 * written (Légifrance consolidated Code de la route; service-public.fr sheet F2390). A rule names
 * its sources by these keys, in the answer and in the code beside it.
 */

const CODE_DE_LA_ROUTE = 'https://www.legifrance.gouv.fr/codes/texte_lc/LEGITEXT000006074228/';

export const SOURCES = {
  L223_1: { title: 'Code de la route, article L223-1', url: CODE_DE_LA_ROUTE },
  L223_6: { title: 'Code de la route, article L223-6', url: CODE_DE_LA_ROUTE },
  R223_1: { title: 'Code de la route, article R223-1', url: CODE_DE_LA_ROUTE },
  R223_3: { title: 'Code de la route, article R223-3', url: CODE_DE_LA_ROUTE },
  R223_4: { title: 'Code de la route, article R223-4', url: CODE_DE_LA_ROUTE },
  R223_8: { title: 'Code de la route, article R223-8', url: CODE_DE_LA_ROUTE },
  CPP_41_2: {
    title: 'Code de procédure pénale, article 41-2 (composition pénale)',
    url: 'https://www.legifrance.gouv.fr/codes/texte_lc/LEGITEXT000006071154/',
  },
  CP_131_35_1: {
    title: 'Code pénal, article 131-35-1 (stage, peine complémentaire)',
    url: 'https://www.legifrance.gouv.fr/codes/texte_lc/LEGITEXT000006070719/',
  },
  F2390: {
    title: 'service-public.fr, fiche F2390 : permis probatoire',
    url: 'https://www.service-public.fr/particuliers/vosdroits/F2390',
  },
} as const;

export type SourceKey = keyof typeof SOURCES;

/* The API's refusals, said to a centre in French: shared by the area's session forms. */

/** What the API's checks say of a field, said to a centre in French. */
export const FRENCH: Record<string, string> = {
  day1: 'date impossible : un stage dure deux jours de suite, jamais un dimanche ni un jour férié',
  day2: 'le second jour tombe un dimanche ou un jour férié : choisissez un autre premier jour',
  startTime: 'heure de début invalide',
  endTime: 'la fin doit venir après le début',
  priceEuros: 'prix invalide : un montant en euros, par exemple 229 ou 229,50',
  capacity: 'un groupe compte de 6 à 20 personnes',
  spotsAvailable: 'les places libres vont de 0 à la taille du groupe',
  declaredOn:
    'déclaration en préfecture : un stage qui commence dans moins de 10 jours doit avoir été déclaré au moins 10 jours avant son premier jour (arrêté du 26 juin 2012 modifié), et jamais après aujourd’hui',
  courseNumber: 'un stage de ce centre a déjà ce numéro (même centre, même jour)',
};

/** The form's fields, named as the page names them, for an API field. */
export const FIELD_OF: Record<string, string> = {
  priceEuros: 'price',
  spotsAvailable: 'spots',
  day2: 'day1',
  courseNumber: 'day1',
};

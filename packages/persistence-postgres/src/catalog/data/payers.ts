import type { CatalogPayer, CatalogPortalAuthMode } from '../catalog.types';

/** The 50 states and the District of Columbia. */
// prettier-ignore
export const ALL_STATES = [
  'AK', 'AL', 'AR', 'AZ', 'CA', 'CO', 'CT', 'DC', 'DE', 'FL', 'GA', 'HI', 'IA', 'ID', 'IL', 'IN', 'KS',
  'KY', 'LA', 'MA', 'MD', 'ME', 'MI', 'MN', 'MO', 'MS', 'MT', 'NC', 'ND', 'NE', 'NH', 'NJ', 'NM', 'NV',
  'NY', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VA', 'VT', 'WA', 'WI', 'WV', 'WY',
] as const;

export interface PayerDefinition extends CatalogPayer {
  /** How the service may sign in to this payer's portal; every route of the payer offers these modes. */
  portalAuthModes: CatalogPortalAuthMode[];
}

const AUTOMATED: CatalogPortalAuthMode[] = ['automated'];
const AUTOMATED_OR_LOGIN: CatalogPortalAuthMode[] = ['automated', 'customer_login'];

/**
 * The payers of this catalog version. Footprints are plausible approximations of each plan's service area for
 * the line of business shown, not an eligibility source.
 */
export const PAYER_DEFINITIONS: PayerDefinition[] = [
  {
    id: 'payer_uhc',
    displayName: 'UnitedHealthcare',
    aliases: ['UHC', 'United Healthcare', 'United Health Care', 'UnitedHealth', 'UnitedHealth Group'],
    status: 'active',
    brand: 'UnitedHealth Group',
    lineOfBusiness: 'commercial',
    supportedStates: [...ALL_STATES],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED_OR_LOGIN,
  },
  {
    id: 'payer_aetna',
    displayName: 'Aetna',
    aliases: ['Aetna Health', 'Aetna Inc', 'Aetna CVS Health'],
    status: 'active',
    brand: 'CVS Health',
    lineOfBusiness: 'commercial',
    supportedStates: [...ALL_STATES],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_cigna',
    displayName: 'Cigna Healthcare',
    aliases: ['Cigna', 'CIGNA', 'The Cigna Group', 'Cigna Health'],
    status: 'active',
    brand: 'The Cigna Group',
    lineOfBusiness: 'commercial',
    supportedStates: [...ALL_STATES],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED_OR_LOGIN,
  },
  {
    id: 'payer_humana',
    displayName: 'Humana',
    aliases: ['Humana Medicare', 'Humana Medicare Advantage', 'Humana Inc'],
    status: 'active',
    brand: 'Humana',
    lineOfBusiness: 'medicare_advantage',
    supportedStates: [...ALL_STATES],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_anthem',
    displayName: 'Anthem Blue Cross and Blue Shield',
    aliases: [
      'Anthem',
      'Anthem BCBS',
      'Anthem Blue Cross Blue Shield',
      'Elevance Health',
      'Elevance',
      'Empire BCBS',
    ],
    status: 'active',
    brand: 'Elevance Health',
    lineOfBusiness: 'commercial',
    supportedStates: ['CO', 'CT', 'GA', 'IN', 'KY', 'ME', 'MO', 'NH', 'NV', 'NY', 'OH', 'VA', 'WI'],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_anthem_ca',
    displayName: 'Anthem Blue Cross',
    aliases: ['Anthem', 'Anthem Blue Cross of California', 'Anthem CA', 'Elevance Health', 'Elevance'],
    status: 'active',
    brand: 'Elevance Health',
    lineOfBusiness: 'commercial',
    supportedStates: ['CA'],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_kaiser',
    displayName: 'Kaiser Permanente',
    aliases: ['Kaiser', 'KP', 'Kaiser Foundation Health Plan', 'Kaiser Health Plan'],
    status: 'active',
    brand: 'Kaiser Permanente',
    lineOfBusiness: 'commercial',
    supportedStates: ['CA', 'CO', 'DC', 'GA', 'HI', 'MD', 'OR', 'VA', 'WA'],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED_OR_LOGIN,
  },
  {
    id: 'payer_bsca',
    displayName: 'Blue Shield of California',
    aliases: ['Blue Shield CA', 'Blue Shield of CA', 'BSC', 'California Blue Shield'],
    status: 'active',
    brand: 'Blue Shield of California',
    lineOfBusiness: 'commercial',
    supportedStates: ['CA'],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_ambetter',
    displayName: 'Ambetter Health',
    aliases: ['Ambetter', 'Ambetter from Centene', 'Centene', 'Centene Ambetter'],
    status: 'active',
    brand: 'Centene',
    lineOfBusiness: 'marketplace',
    // prettier-ignore
    supportedStates: [
      'AL', 'AR', 'AZ', 'DE', 'FL', 'GA', 'IL', 'IN', 'KS', 'KY', 'LA', 'MI', 'MO', 'MS', 'NC', 'NH', 'NJ',
      'NV', 'OH', 'OK', 'PA', 'SC', 'TN', 'TX', 'WA',
    ],
    supportedServiceTypes: ['inpatient', 'outpatient', 'drug'],
    portalAuthModes: AUTOMATED,
  },
  {
    id: 'payer_molina',
    displayName: 'Molina Healthcare',
    aliases: ['Molina', 'Molina Medicaid', 'Molina Healthcare Medicaid'],
    status: 'active',
    brand: 'Molina Healthcare',
    lineOfBusiness: 'medicaid',
    // prettier-ignore
    supportedStates: [
      'AZ', 'CA', 'FL', 'IA', 'ID', 'IL', 'KY', 'MI', 'MS', 'NE', 'NM', 'NV', 'NY', 'OH', 'SC', 'TX', 'UT',
      'VA', 'WA', 'WI',
    ],
    // Pharmacy benefits of these Medicaid plans are carved out to the state, so no drug routes.
    supportedServiceTypes: ['inpatient', 'outpatient'],
    portalAuthModes: AUTOMATED,
  },
];

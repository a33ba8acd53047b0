import type { CatalogServiceCodeSystem, CatalogServiceType } from '../catalog.types';
import type { ServiceTemplateKey } from './questionnaire-templates';

/** A service the catalog routes, and the template it uses with every payer. */
export interface ServiceDefinition {
  serviceType: CatalogServiceType;
  serviceCodeSystem: CatalogServiceCodeSystem;
  /** In canonical form (see `normalizeServiceCode`): upper-case HCPCS, 5-digit CPT, 11-digit NDC without dashes. */
  serviceCode: string;
  description: string;
  templateKey: ServiceTemplateKey;
}

export const SERVICE_DEFINITIONS: ServiceDefinition[] = [
  {
    serviceType: 'outpatient',
    serviceCodeSystem: 'cpt',
    serviceCode: '70553',
    description: 'MRI brain without contrast, followed by contrast',
    templateKey: 'mri_brain',
  },
  {
    serviceType: 'inpatient',
    serviceCodeSystem: 'cpt',
    serviceCode: '27447',
    description: 'Total knee arthroplasty',
    templateKey: 'knee_arthroplasty',
  },
  {
    serviceType: 'outpatient',
    serviceCodeSystem: 'hcpcs',
    serviceCode: 'E0601',
    description: 'Continuous positive airway pressure (CPAP) device',
    templateKey: 'cpap_device',
  },
  {
    serviceType: 'outpatient',
    serviceCodeSystem: 'hcpcs',
    serviceCode: 'E1390',
    description: 'Oxygen concentrator, single delivery port',
    templateKey: 'home_oxygen',
  },
  {
    serviceType: 'drug',
    serviceCodeSystem: 'ndc',
    // NDC 0074-0554-02 (adalimumab 40 mg/0.4 mL pen) in the 11-digit 5-4-2 billing form.
    serviceCode: '00074055402',
    description: 'Adalimumab 40 mg/0.4 mL pen',
    templateKey: 'adalimumab',
  },
];

export * from './catalog';
export * from './catalog.entity';
export * from './catalog.mapper';
export * from './catalog.types';
export * from './seed-catalog';
export * from './typeorm-payer-catalog';
export * from './route-template.writer';

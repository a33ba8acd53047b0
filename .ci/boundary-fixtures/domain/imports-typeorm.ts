// Deliberate violation: the boundary check must reject an ORM in the domain.
import { DataSource } from 'typeorm';
export const dataSource = DataSource;

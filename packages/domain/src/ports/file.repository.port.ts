import { type File } from '../file/file.aggregate';
import { type Page } from './authorization.repository.port';

export interface FileListQuery {
  limit: number;
  cursor?: string;
}

/** Files of one tenant; bound to a TenantScope by the unit of work. Same save semantics as authorizations. */
export interface FileRepository {
  findById(id: string): Promise<File | null>;
  save(file: File): Promise<void>;
  list(query: FileListQuery): Promise<Page<File>>;
}

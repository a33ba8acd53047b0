import { type File } from '../file/file.aggregate';
import { type DomainPorts } from '../ports';
import { type Page } from '../ports/authorization.repository.port';
import { type FileListQuery } from '../ports/file.repository.port';
import { type TenantScope } from '../shared/scope';

export type ListFilesDeps = Pick<DomainPorts, 'unitOfWork'>;

/** Newest first; limit and cursor are validated by the API (decision 0023). */
export class ListFilesUseCase {
  constructor(private readonly deps: ListFilesDeps) {}

  execute(scope: TenantScope, query: FileListQuery): Promise<Page<File>> {
    return this.deps.unitOfWork.run(scope, (tx) => tx.files.list(query));
  }
}

/** Opaque, unique ids of the form `<prefix>_<random>` (for example `auth_…`, `file_…`, `mh_…`). */
export interface IdGenerator {
  newId(prefix: string): string;
}

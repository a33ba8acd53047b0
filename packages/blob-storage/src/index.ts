// Filesystem and S3 adapters of the domain's BlobStore port land here (files and blob storage issue).
export {};

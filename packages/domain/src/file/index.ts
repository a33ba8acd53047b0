export * from './file-content-type';
export * from './sniff-content-type';
export * from './file.aggregate';
export * from './file-storage-keys';

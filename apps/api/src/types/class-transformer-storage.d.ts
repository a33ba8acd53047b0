/** The decorator metadata of class-transformer (its `@Type` targets), which the package ships untyped at this path. */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}

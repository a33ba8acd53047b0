import 'reflect-metadata';
import { IsString, MaxLength, MetadataStorage, getMetadataStorage, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata-cache';

class Base {
  @IsString()
  id!: string;
}

class Child extends Base {
  @IsString()
  @MaxLength(3)
  code!: string;
}

const of = <T extends object>(type: new () => T, values: Partial<T>): T => Object.assign(new type(), values);

describe('memoizeValidationMetadata', () => {
  it('answers what the storage answers, inherited rules included, once per class and options', () => {
    const storage = getMetadataStorage();
    const unmemoized = MetadataStorage.prototype.getTargetValidationMetadatas.call(
      storage,
      Child,
      '',
      false,
      false,
    );
    memoizeValidationMetadata(storage);
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(first).toEqual(unmemoized);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['code', 'code', 'id']);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(storage.getTargetValidationMetadatas(Child, '', true, false)).not.toBe(first);
    expect(storage.getTargetValidationMetadatas(Base, '', false, false)).toHaveLength(1);
    expect(Object.isFrozen(first)).toBe(true);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
  });

  it('leaves validation as it was: each rule, inherited ones too, still refuses', () => {
    memoizeValidationMetadata();
    for (let round = 0; round < 2; round += 1) {
      expect(validateSync(of(Child, { id: 'a', code: 'abc' }))).toEqual([]);
      const errors = validateSync(of(Child, { id: 1 as never, code: 'abcd' }));
      expect(errors.map((e) => [e.property, Object.keys(e.constraints ?? {})])).toEqual([
        ['code', ['maxLength']],
        ['id', ['isString']],
      ]);
    }
  });
});

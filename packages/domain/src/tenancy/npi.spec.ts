import { isValidNpi } from './npi';

describe('isValidNpi', () => {
  it.each([
    ['1234567893', true], // the CMS worked example
    ['1245319599', true],
    ['1003000126', true],
    ['1234567890', false], // wrong check digit
    ['123456789', false], // too short
    ['12345678931', false], // too long
    ['12345678a3', false], // not digits
    ['', false],
  ])('%s → %s', (npi, valid) => {
    expect(isValidNpi(npi)).toBe(valid);
  });
});

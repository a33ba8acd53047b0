/**
 * National Provider Identifier check: 10 digits whose last digit is the Luhn check digit computed over the
 * first nine prefixed with the card-issuer prefix 80840 (CMS NPI standard).
 */
export function isValidNpi(npi: string): boolean {
  if (!/^\d{10}$/.test(npi)) return false;
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    // Double every second digit counting from the right of the payload (the check digit is excluded).
    let digit = Number(digits[digits.length - 1 - index]);
    if (index % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  const check = (10 - (sum % 10)) % 10;
  return check === Number(npi[9]);
}

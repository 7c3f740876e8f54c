/** The catalog's doctor check: how many scenarios are indexed and which files could not be used. */
import type { DoctorCheck } from '../../core/services.ts';

export const catalogCheck: DoctorCheck = {
  id: 'catalog',
  async run(services) {
    const { total, bySource, problems } = await services.use('catalog').integrity();
    const details = { total, by_source: bySource, problems: problems.slice(0, 20) };
    if (problems.length) return { status: 'warn', message: `${total} scenarios indexed; ${problems.length} file(s) could not be used (first: ${problems[0].path}: ${problems[0].message})`, hint: 'fix or remove the listed files; ids must be unique across catalog folders', details };
    if (total === 0) return { status: 'warn', message: 'the catalog is empty', hint: 'the bundled catalog/ folder is missing, or AEH_CATALOG_DIRS points at empty folders', details };
    return { status: 'ok', message: `${total} scenarios indexed, every one valid and unique`, details };
  },
};

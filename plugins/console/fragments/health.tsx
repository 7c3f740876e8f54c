/** Health fragment: the doctor's checks. */
import type { AppContext } from '../../../core/routes.ts';
import { Badge } from '../layout.tsx';
import { callApi } from '../api.ts';

export async function healthFragment(c: AppContext) {
  const { status, body } = await callApi(c, '/api/v1/doctor');
  if (status !== 200) return c.html(<p role="alert">Could not run the doctor: {body.detail ?? status}</p>);
  return c.html(
    <div>
      <p>Overall: <Badge value={body.status} /></p>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Message</th><th scope="col">How to fix</th></tr></thead>
        <tbody>
          {body.checks.map((check: { id: string; status: string; message: string; hint?: string }) => (
            <tr><td><code>{check.id}</code></td><td><Badge value={check.status} /></td><td>{check.message}</td><td>{check.hint ?? ''}</td></tr>
          ))}
        </tbody>
      </table></div>
    </div>,
  );
}

/** The demo sign-in page, and the account link in the header. */
import { config, customer, signIn, signOut } from '../shop.js';
import { escape, flash, show, view } from '../ui.js';
import { updateCartCount } from './cart.js';

export function updateAccountLink() {
  const link = document.getElementById('account-link')!;
  const email = customer()?.email;
  link.hidden = !config.signIn && !email;
  link.textContent = email ? email : 'Sign in';
}

export function renderAccount() {
  const email = customer()?.email;
  if (email) {
    view.innerHTML = `<h1>Your account</h1><p>Signed in as <strong>${escape(email)}</strong>.</p>
      <div class="actions"><a class="button secondary" href="#/orders">My orders</a><button class="button secondary" id="sign-out">Sign out</button></div>`;
    document.getElementById('sign-out')!.addEventListener('click', async () => {
      await signOut();
      updateAccountLink();
      flash('You are signed out.');
      location.hash = '#/';
    });
    return;
  }
  if (!config.signIn) return void (view.innerHTML = '<h1>Sign in</h1><p>This shop runs without a server token: guests only (set STOREFRONT_SERVER_TOKEN).</p>');
  view.innerHTML = `<h1>Sign in</h1>
    <p class="notice"><strong>Demo sign-in:</strong> no password, anyone may sign in as any email. It shows how a shop's back end
    signs a customer in: after its own check (a password, a link by email), it mints a customer token with its secret server token.
    This is not real authentication.</p>
    <form id="sign-in" class="form narrow"><label class="field">Email<input class="input" name="email" type="email" required autocomplete="email"></label>
    <button class="button primary" type="submit">Sign in</button></form>`;
  document.getElementById('sign-in')!.addEventListener('submit', async (event) => {
    event.preventDefault();
    const problem = await signIn(String(new FormData(event.target as HTMLFormElement).get('email') ?? ''));
    if (problem) return show(problem);
    updateAccountLink();
    await updateCartCount();
    flash(`Signed in as ${customer()!.email}.`);
    location.hash = '#/orders';
  });
}

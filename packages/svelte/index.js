export { default as ParleyComments } from './ParleyComments.svelte';
export { default as ParleyCount } from './ParleyCount.svelte';

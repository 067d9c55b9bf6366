/* a: never changed by the test's commits */
int fake_a(int x);

int fake_a(int x)
{
	return x - 1;
}
